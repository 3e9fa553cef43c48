//! Geometry: the triangle meshes' BVH against brute force.

mod mesh_bvh;
