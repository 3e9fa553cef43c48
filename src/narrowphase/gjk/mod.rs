//! GJK on the Minkowski difference of two shapes' cores: the closest-point iteration, the
//! distance (and, with EPA, the depth) of any pair, the boolean searches and the ray cast.

pub(super) mod boolean;
pub(super) mod closest;
pub(super) mod distance;
pub(super) mod hull8;
pub(crate) mod near_part;
pub(super) mod ray;
pub(super) mod seed;
pub(super) mod voronoi;
