//! GJK on the Minkowski difference of two shapes' cores: the closest-point iteration, the
//! distance (and, with EPA, the depth) of any pair, the boolean searches and the ray cast.

pub mod boolean;
pub mod closest;
pub mod distance;
pub mod near_part;
pub mod ray;
pub mod seed;
pub mod voronoi;
