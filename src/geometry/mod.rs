//! Shapes, bounding boxes, rays and mass properties.

mod aabb;
mod hull;
mod mass;
pub mod planar;
mod quickhull;
mod ray;
mod raycast;
/// Closest points on segments.
pub mod segment;
mod shape;
mod slab;

pub use aabb::Aabb;
pub use hull::{ConvexHull, HullError, HullFace};
pub use mass::MassProperties;
pub use ray::{Ray, RayHit};
pub use raycast::{ray_aabb, ray_capsule, ray_cast, ray_cuboid, ray_hull, ray_sphere};
pub use shape::{Capsule, Cuboid, Shape, ShapeKind, Sphere};
pub use slab::{SlabAxis, SlabTrace, direction_from_degrees, slab_axis};
