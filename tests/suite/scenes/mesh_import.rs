//! Issue 19, mesh import: OBJ and glTF/GLB files named by a scene (`TriangleMesh(file: ...)`,
//! `ConvexHull(file: ...)`), read from scenes/assets/: counts, bounds, node transforms and
//! winding; every error names its place; paths resolve relative to the scene file; and
//! scenes/mesh_import.ron's rocks come to rest on the imported floor and ramp.

use collidoscope::geometry::{Aabb, Shape};
use collidoscope::math::Vec3;
use collidoscope::scene::import::{ImportedMesh, import_mesh};
use collidoscope::scene::{Scene, ShapeDesc};
use std::path::{Path, PathBuf};

fn asset(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/assets").join(name)
}

fn bounds(m: &ImportedMesh) -> Aabb {
    Aabb::from_points(m.vertices.iter().copied())
}

fn normal(m: &ImportedMesh, t: [u32; 3]) -> Vec3 {
    let [a, b, c] = t.map(|i| m.vertices[i as usize]);
    (b - a).cross(c - a)
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}

/// A fresh folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collidoscope-import-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Loads a one-body scene written beside the mesh files in `dir`; the error as text.
fn load_with(dir: &Path, shape: &str) -> Result<Scene, String> {
    let path = dir.join("scene.ron");
    std::fs::write(&path, format!("(bodies: [(kind: Static, shape: {shape})])")).unwrap();
    Scene::load(&path).map_err(|e| e.to_string())
}

fn assert_err(result: Result<Scene, String>, parts: &[&str]) {
    let e = result.expect_err("the scene should fail to load");
    for p in parts {
        assert!(e.contains(p), "the error should contain {p:?}: {e}");
    }
}

#[test]
fn obj_objects_are_triangulated_and_merged_or_picked_by_name() {
    let all = import_mesh(&asset("ramp.obj"), None, 1.0).unwrap();
    // The floor: 11 x 7 vertices, 10 x 6 quads; the ramp: 7 x 5 vertices, 6 x 4 quads.
    assert_eq!(all.vertices.len(), 77 + 35);
    assert_eq!(all.triangles.len(), 2 * 60 + 2 * 24);
    let b = bounds(&all);
    assert!(close(b.min, Vec3::new(-10.0, 0.0, -6.0), 1e-6) && close(b.max, Vec3::new(10.0, 2.5, 6.0), 1e-6), "{b:?}");
    // Counter-clockwise seen from above: every triangle of both faces up.
    assert!(all.triangles.iter().all(|&t| normal(&all, t).y > 0.0));

    let ramp = import_mesh(&asset("ramp.obj"), Some("ramp"), 2.0).unwrap();
    assert_eq!((ramp.vertices.len(), ramp.triangles.len()), (35, 48));
    let b = bounds(&ramp);
    assert!(close(b.min, Vec3::new(-18.0, 0.0, -4.0), 1e-5) && close(b.max, Vec3::new(-6.0, 5.0, 4.0), 1e-5), "{b:?}");
    // The ramp's slope: it falls 2.5 m over 6 m towards +x, so its normal leans to +x.
    let n = normal(&ramp, ramp.triangles[0]).normalize();
    // (the file's coordinates have four decimals)
    assert!(close(n, Vec3::new(2.5, 6.0, 0.0).normalize(), 1e-4), "{n:?}");
}

#[test]
fn gltf_and_glb_give_the_same_meshes_with_node_transforms_applied() {
    let gltf = import_mesh(&asset("rocks.gltf"), None, 1.0).unwrap();
    let glb = import_mesh(&asset("rocks.glb"), None, 1.0).unwrap();
    assert_eq!(gltf, glb);
    // Four placed meshes of 12 vertices and 20 triangles: rock_a, rock_b, rock_a_origin, _mirror.
    assert_eq!((gltf.vertices.len(), gltf.triangles.len()), (48, 80));

    let origin = import_mesh(&asset("rocks.glb"), Some("rock_a_origin"), 1.0).unwrap();
    assert_eq!((origin.vertices.len(), origin.triangles.len()), (12, 20));
    // rock_a under its parent "rocks": scaled by 0.5, then moved by (0, 1, 0) + 0.5 x (2, 0, 0).
    let a = import_mesh(&asset("rocks.glb"), Some("rock_a"), 1.0).unwrap();
    assert_eq!(a.triangles, origin.triangles);
    for (p, q) in a.vertices.iter().zip(&origin.vertices) {
        assert!(close(*p, *q * 0.5 + Vec3::new(1.0, 1.0, 0.0), 1e-6), "{p:?} from {q:?}");
    }
    // Mirrored (x negated): the same points reflected, each triangle's winding turned back so it
    // still faces out of the rock.
    let m = import_mesh(&asset("rocks.glb"), Some("rock_a_mirror"), 1.0).unwrap();
    for (p, q) in m.vertices.iter().zip(&origin.vertices) {
        assert_eq!(*p, Vec3::new(-q.x, q.y, q.z));
    }
    for mesh in [&origin, &a, &m] {
        let centre = bounds(mesh).center();
        for &t in &mesh.triangles {
            let c = t.map(|i| mesh.vertices[i as usize]).iter().copied().sum::<Vec3>() / 3.0;
            assert!(normal(mesh, t).dot(c - centre) > 0.0, "triangle {t:?} faces into its rock");
        }
    }
    // rock_b is turned 90 degrees about z: the long axis of its mesh (x, radius 0.6) now runs
    // along y, halved; its centre is at (0, 1, 0) + 0.5 x (-2, 0, 0).
    let b = bounds(&import_mesh(&asset("rocks.glb"), Some("rock_b"), 1.0).unwrap());
    assert!(b.extents().y > 1.5 * b.extents().x, "{b:?}");
    assert!(b.extents().y <= 0.6 * 1.2 + 1e-5, "{b:?}");
    assert!(close(b.center(), Vec3::new(-1.0, 1.0, 0.0), 0.1), "{b:?}");
    // A mesh's name picks every node that places it.
    let by_mesh = import_mesh(&asset("rocks.glb"), Some("rock_a_mesh"), 1.0).unwrap();
    assert_eq!((by_mesh.vertices.len(), by_mesh.triangles.len()), (36, 60));
}

#[test]
fn paths_resolve_relative_to_the_scene_file_and_loading_inlines_the_mesh() {
    // scenes/mesh_import.ron names "assets/...", found beside it whatever the working folder.
    let scene = Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/mesh_import.ron")).unwrap();
    match &scene.bodies[0].shape {
        ShapeDesc::TriangleMesh { vertices, indices, file, .. } => {
            assert_eq!((vertices.len(), indices.len(), file.as_deref()), (77, 120, None));
        }
        s => panic!("{s:?}"),
    }
    // The hull is of the file's distinct vertices (12), times the scale.
    match &scene.bodies[3].shape {
        ShapeDesc::ConvexHull { points, file, .. } => {
            assert_eq!((points.len(), file.as_deref()), (12, None));
            let origin = import_mesh(&asset("rocks.glb"), Some("rock_a_origin"), 1.0).unwrap();
            assert!(points.iter().zip(&origin.vertices).all(|(p, q)| *p == *q * 0.7));
        }
        s => panic!("{s:?}"),
    }
    // Saved, the scene holds the triangles themselves and loads from anywhere.
    let dir = scratch("inline");
    let saved = dir.join("copy.ron");
    scene.save(&saved).unwrap();
    assert_eq!(Scene::load(&saved).unwrap().bodies, scene.bodies);

    // A scene in a folder of its own finds files beside it and in folders below and above it.
    let sub = dir.join("levels");
    std::fs::create_dir_all(sub.join("meshes")).unwrap();
    std::fs::copy(asset("ramp.obj"), sub.join("meshes/ramp.obj")).unwrap();
    std::fs::copy(asset("ramp.obj"), dir.join("up.obj")).unwrap();
    for name in ["meshes/ramp.obj", "../up.obj"] {
        let s = load_with(&sub, &format!("TriangleMesh(file: \"{name}\", object: \"floor\")")).unwrap();
        assert!(matches!(&s.bodies[0].shape, ShapeDesc::TriangleMesh { indices, .. } if indices.len() == 120));
    }
    // Not beside the scene: the error gives the path it tried.
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"meshes/ramp.obj\")"),
        &["bodies[0].shape", "meshes/ramp.obj", &dir.join("meshes/ramp.obj").display().to_string(), "cannot read"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn obj_errors_name_the_file_the_line_and_the_object() {
    let dir = scratch("obj");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    write("bad.obj", "o a\nv 0 0 0\nv 1 0 x\nv 0 0 1\nf 1 2 3\n");
    assert_err(load_with(&dir, "TriangleMesh(file: \"bad.obj\")"), &["bad.obj:3: position parse error"]);
    write("face.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\nf 1 2 9\n");
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"face.obj\")"),
        &["face.obj:5: f refers to vertex 9, but 3 vertices are defined before this line"],
    );
    write("points.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\n");
    assert_err(load_with(&dir, "TriangleMesh(file: \"points.obj\")"), &["points.obj: the file has no triangles"]);
    write("inf.obj", "o lump\nv 0 0 0\nv 1 inf 0\nv 0 0 1\nf 1 2 3\n");
    assert_err(load_with(&dir, "TriangleMesh(file: \"inf.obj\")"), &["inf.obj:3: vertex v 1 inf 0 is not finite"]);
    // The mesh checks after import name the file too.
    write("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"flat.obj\")"),
        &["flat.obj", "triangle 0 of object \"unnamed_object\" is degenerate"],
    );
    // A degenerate triangle is an error naming the object and the triangle within it (the
    // second face of object b, the fourth of the file); a hull reads only the vertices.
    write(
        "sliver.obj",
        "o a\nv 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 3 2\nf 1 3 2\no b\nv 0 1 0\nv 0 1 1\nv 1 1 0\nv 0 1 2\nf 4 5 6\nf 4 5 7\n",
    );
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"sliver.obj\")"),
        &["sliver.obj: triangle 1 of object \"b\" is degenerate (area 0e0; triangle 3 of the merged mesh)"],
    );
    assert!(load_with(&dir, "ConvexHull(file: \"sliver.obj\")").is_ok());
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"flat.obj\", scale: 0)"),
        &["bodies[0].shape", "scale: 0 is out of range"],
    );
    std::fs::copy(asset("ramp.obj"), dir.join("ramp.obj")).unwrap();
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"ramp.obj\", object: \"stairs\")"),
        &["no object named \"stairs\"; the file has \"floor\", \"ramp\""],
    );
    // Scaled beyond the coordinate range: the scene's own checks, naming the file.
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"ramp.obj\", scale: 1e5)"),
        &["ramp.obj", "vertices[0]", "out of range"],
    );
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"ramp.stl\")"),
        &["ramp.stl: not a mesh file this build reads (.stl)"],
    );
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"ramp.obj\", vertices: [(0, 0, 0)])"),
        &["give either a file or vertices and indices, not both"],
    );
    assert_err(load_with(&dir, "TriangleMesh(vertices: [], object: \"floor\")"), &["give a file too"]);
    // A dynamic body cannot be a mesh, imported or not; it can be the hull of one.
    let path = dir.join("dynamic.ron");
    std::fs::write(&path, "(bodies: [(shape: TriangleMesh(file: \"ramp.obj\"))])").unwrap();
    assert!(Scene::load(&path).unwrap_err().to_string().contains("is dynamic"));
    std::fs::write(&path, "(bodies: [(shape: ConvexHull(file: \"ramp.obj\", object: \"floor\"))])").unwrap();
    assert!(Scene::load(&path).unwrap_err().to_string().contains("coplanar"), "a flat floor makes no hull");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A glTF file of one triangle (three vertices, no indices) in an embedded or external buffer.
fn one_triangle(uri: &str, mode: u32, byte_length: usize) -> String {
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [0]}}],
        "nodes": [{{"name": "tri", "mesh": 0, "translation": [0, 2, 0]}}],
        "meshes": [{{"name": "m", "primitives": [{{"attributes": {{"POSITION": 0}}, "mode": {mode}}}]}}],
        "accessors": [{{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 0, 1]}}],
        "bufferViews": [{{"buffer": 0, "byteOffset": 0, "byteLength": 36}}],
        "buffers": [{{"byteLength": {byte_length}, "uri": "{uri}"}}]}}"#
    )
}

fn triangle_bytes() -> Vec<u8> {
    [0.0f32, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn gltf_buffers_and_errors() {
    use base64::Engine;
    let dir = scratch("gltf");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    let encoded = base64::engine::general_purpose::STANDARD.encode(triangle_bytes());
    write("embedded.gltf", &one_triangle(&format!("data:application/octet-stream;base64,{encoded}"), 4, 36));
    let m = import_mesh(&dir.join("embedded.gltf"), None, 1.0).unwrap();
    assert_eq!(m.triangles, vec![[0, 1, 2]]);
    assert_eq!(m.vertices, vec![Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.0, 2.0, 1.0), Vec3::new(1.0, 2.0, 0.0)]);
    // An external buffer whose name needs escaping.
    std::fs::write(dir.join("my tri.bin"), triangle_bytes()).unwrap();
    write("external.gltf", &one_triangle("my%20tri.bin", 4, 36));
    assert_eq!(import_mesh(&dir.join("external.gltf"), None, 1.0).unwrap(), m);

    let mut bytes = triangle_bytes();
    bytes[16..20].copy_from_slice(&f32::INFINITY.to_le_bytes());
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    write("inf.gltf", &one_triangle(&format!("data:application/octet-stream;base64,{encoded}"), 4, 36));
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"inf.gltf\")"),
        &["inf.gltf: vertex 1 of node \"tri\" primitive 0 is not finite: (0, inf, 1)"],
    );
    let mut bytes = triangle_bytes();
    bytes.copy_within(0..12, 24);
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    write("sliver.gltf", &one_triangle(&format!("data:application/octet-stream;base64,{encoded}"), 4, 36));
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"sliver.gltf\")"),
        &["sliver.gltf: triangle 0 of node \"tri\" primitive 0 is degenerate"],
    );
    write("lines.gltf", &one_triangle("my%20tri.bin", 1, 36));
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"lines.gltf\")"),
        &["lines.gltf: mesh \"m\" primitive 0: mode Lines is not supported (only TRIANGLES)"],
    );
    write("nobin.gltf", &one_triangle("gone.bin", 4, 36));
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"nobin.gltf\")"),
        &["nobin.gltf: buffer 0: cannot read", &dir.join("gone.bin").display().to_string()],
    );
    write("text.gltf", &one_triangle("data:text/plain,abc", 4, 36));
    assert_err(load_with(&dir, "TriangleMesh(file: \"text.gltf\")"), &["buffer 0", "only base64 data URIs"]);
    write("short.gltf", &one_triangle("my%20tri.bin", 4, 64));
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"short.gltf\")"),
        &["buffer 0: holds 36 bytes, but the file declares 64"],
    );
    // A view that runs past its accessor's data is refused, not read out of bounds.
    write("view.gltf", &one_triangle("my%20tri.bin", 4, 36).replace("\"byteLength\": 36", "\"byteLength\": 24"));
    assert_err(
        load_with(&dir, "TriangleMesh(file: \"view.gltf\")"),
        &["POSITION (accessor 0): 3 elements of 12 bytes", "do not fit in the 24 bytes of buffer view 0"],
    );
    write("broken.gltf", "{\"asset\": {\"version\": \"2.0\"},\n \"meshes\": [}");
    assert_err(load_with(&dir, "TriangleMesh(file: \"broken.gltf\")"), &["broken.gltf: not valid glTF", "line 2"]);
    std::fs::copy(asset("rocks.glb"), dir.join("rocks.glb")).unwrap();
    assert_err(
        load_with(&dir, "ConvexHull(file: \"rocks.glb\", object: \"boulder\")"),
        &["no object named \"boulder\"; the file has \"rock_a_mesh\", \"rock_a\", \"rock_b_mesh\", \"rock_b\""],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn imported_rocks_come_to_rest_on_the_imported_floor_and_ramp() {
    let scene = Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/mesh_import.ron")).unwrap();
    let mut w = scene.build().unwrap();
    assert!(matches!(&w.bodies()[1].shape, Shape::TriangleMesh(m) if m.triangles().len() == 48));
    // 8 s at 60 Hz: the rocks off the ramp have rolled to a stop and fallen asleep.
    for _ in 0..480 {
        w.step();
    }
    let slop = w.settings.slop;
    // The height of the imported surface: the floor at y = 0 (20 x 12 m), the ramp above it
    // from 2.5 m at x = -9 down to the floor at x = -3, 4 m wide.
    let surface = |p: Vec3| {
        if (-9.0..=-3.0).contains(&p.x) && p.z.abs() <= 2.0 { 2.5 * (-3.0 - p.x) / 6.0 } else { 0.0 }
    };
    for b in w.bodies().iter().filter(|b| b.is_dynamic()) {
        let name = b.name.clone().unwrap_or_default();
        let p = b.pose.translation;
        assert!(b.is_asleep(), "{name} still moving: {:?} {:?}", b.linvel, b.angvel);
        assert!(p.x.abs() < 10.0 && p.z.abs() < 6.0, "{name} left the floor: {p:?}");
        let Shape::ConvexHull(h) = &b.shape else { panic!("{name} is not a hull") };
        // Every vertex above the surface under it, within the slop and a millimetre (none fell
        // through), and the lowest touching it (resting on it, not caught above it).
        let gap = h
            .vertices()
            .iter()
            .map(|&v| b.pose.transform_point(v))
            .map(|v| v.y - surface(v))
            .fold(f32::INFINITY, f32::min);
        assert!(gap > -(slop + 1e-3) && gap < 0.01, "{name}: lowest point {gap} m from the surface");
    }
}
