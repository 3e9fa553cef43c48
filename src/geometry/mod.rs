//! Shapes, bounding boxes, rays and mass properties.

mod aabb;
mod compound;
mod heightfield;
mod hull;
pub(crate) use hull::first_farthest;
mod mass;
pub mod mesh_bvh;
pub mod planar;
mod quickhull;
mod ray;
mod raycast;
/// Closest points on segments.
pub mod segment;
mod shape;
mod slab;
mod trimesh;

pub use aabb::Aabb;
pub use compound::{Compound, CompoundChild, CompoundError, parallel_axis};
pub use heightfield::HeightField;
pub use hull::{ConvexHull, HullError, HullFace};
pub use mass::MassProperties;
pub use mesh_bvh::{BvhNode, MeshBvh};
pub use ray::{Ray, RayHit};
pub use raycast::{ray_aabb, ray_capsule, ray_cast, ray_cuboid, ray_hull, ray_sphere};
pub use shape::{Capsule, Cuboid, Shape, ShapeKind, Sphere};
pub use slab::{SlabAxis, SlabTrace, direction_from_degrees, slab_axis};
pub use trimesh::{MeshError, NO_NEIGHBOUR, TriangleMesh, degenerate_area, ray_triangle};

/// A broken invariant of an acceleration structure (a tree, a grid, a sorted list) as its
/// `validate` finds it: what does not hold, in words. Tests and debug builds run the checks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvariantError(pub String);
