//! Hostile input, round two (issue #38): imported mesh files (glTF, GLB, OBJ), the numbers of
//! mesh and height-field fields, shared imports, the pile budget, and byte-level fuzzing of the
//! OBJ, glTF/GLB and scene parsers. Each hostile file is built here in a scratch folder; each
//! case fails with one line naming the file and the problem, or loads; nothing panics, hangs or
//! asks for more memory than the file justifies.

use collidoscope::geometry::{NO_NEIGHBOUR, Shape, TriangleMesh};
use collidoscope::math::Vec3;
use collidoscope::scene::Scene;
use collidoscope::scene::import::import_mesh_bytes;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// A fresh folder for one case's files, removed when the case ends.
fn scratch(test: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("collidoscope-h38", test)
}

/// Loads a scene in `dir` whose only body is a static `shape`.
fn load_with(dir: &Path, shape: &str) -> Result<Scene, String> {
    let path = dir.join("scene.ron");
    std::fs::write(&path, format!("(bodies: [(kind: Static, shape: {shape})])")).unwrap();
    Scene::load(&path).map_err(|e| e.to_string())
}

/// The load fails with one line that starts with the scene file and holds every part.
fn assert_refused(dir: &Path, shape: &str, parts: &[&str]) {
    let e = load_with(dir, shape).expect_err(&format!("{shape} should be refused"));
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    assert!(e.starts_with(&dir.join("scene.ron").display().to_string()), "names the scene: {e}");
    for p in parts {
        assert!(e.contains(p), "the error should contain {p:?}: {e}");
    }
}

// ---- glTF and GLB ----

/// A one-triangle glTF: positions (accessor 0, view 0) and u16 indices (accessor 1, view 1) in
/// one buffer; each part may be replaced by a case.
struct Gltf {
    accessors: String,
    views: String,
    nodes: String,
    meshes: String,
    scenes: String,
    buffer: Vec<u8>,
    /// The buffer's `byteLength` when it differs from the bytes.
    declared: Option<usize>,
}

const POSITIONS: &str = r#"{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,0,1]}"#;
const INDICES: &str = r#"{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}"#;

impl Gltf {
    fn triangle() -> Gltf {
        let mut buffer = Vec::new();
        for v in [[0f32, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]] {
            for c in v {
                buffer.extend(c.to_le_bytes());
            }
        }
        for i in [0u16, 1, 2, 0] {
            buffer.extend(i.to_le_bytes());
        }
        Gltf {
            accessors: format!("[{POSITIONS},{INDICES}]"),
            views: r#"[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6}]"#
                .into(),
            nodes: r#"[{"mesh":0,"name":"tri"}]"#.into(),
            meshes: r#"[{"name":"tri_mesh","primitives":[{"attributes":{"POSITION":0},"indices":1}]}]"#.into(),
            scenes: r#"[{"nodes":[0]}]"#.into(),
            buffer,
            declared: None,
        }
    }

    fn json(&self, buffer: &str) -> String {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":{},"nodes":{},"meshes":{},"accessors":{},"bufferViews":{},"buffers":[{buffer}]}}"#,
            self.scenes, self.nodes, self.meshes, self.accessors, self.views
        )
    }

    fn length(&self) -> usize {
        self.declared.unwrap_or(self.buffer.len())
    }

    /// `NAME.gltf` with its buffer in `NAME.bin`; the file's name.
    fn write(&self, dir: &Path, name: &str) -> String {
        std::fs::write(dir.join(format!("{name}.bin")), &self.buffer).unwrap();
        let json = self.json(&format!(r#"{{"byteLength":{},"uri":"{name}.bin"}}"#, self.length()));
        std::fs::write(dir.join(format!("{name}.gltf")), json).unwrap();
        format!("{name}.gltf")
    }

    /// The same as a GLB file.
    fn glb(&self) -> Vec<u8> {
        let mut json = self.json(&format!(r#"{{"byteLength":{}}}"#, self.length())).into_bytes();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.buffer.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = b"glTF".to_vec();
        out.extend(2u32.to_le_bytes());
        out.extend((total as u32).to_le_bytes());
        out.extend((json.len() as u32).to_le_bytes());
        out.extend(b"JSON");
        out.extend(&json);
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(&bin);
        out
    }
}

/// Loads `g` as a glTF file and as a GLB file: both are refused with every part in the message.
fn gltf_refused(test: &str, g: &Gltf, parts: &[&str]) {
    let dir = scratch(test);
    let name = g.write(&dir, "m");
    assert_refused(&dir, &format!("TriangleMesh(file: \"{name}\")"), parts);
    std::fs::write(dir.join("m.glb"), g.glb()).unwrap();
    assert_refused(&dir, "TriangleMesh(file: \"m.glb\")", parts);
}

#[test]
fn the_triangle_template_loads_as_gltf_and_glb() {
    let g = Gltf::triangle();
    let dir = scratch("template");
    let name = g.write(&dir, "m");
    for file in [name.as_str(), "m.glb"] {
        std::fs::write(dir.join("m.glb"), g.glb()).unwrap();
        let scene = load_with(&dir, &format!("TriangleMesh(file: \"{file}\")")).unwrap();
        assert_eq!(scene.build().unwrap().bodies().len(), 1, "{file}");
    }
}

#[test]
fn strides_smaller_than_an_element_are_refused() {
    // The issue's cases: a POSITION view with byteStride 4, and a VEC2 accessor with stride 8.
    let mut g = Gltf::triangle();
    g.views =
        r#"[{"buffer":0,"byteOffset":0,"byteLength":36,"byteStride":4},{"buffer":0,"byteOffset":36,"byteLength":6}]"#
            .into();
    gltf_refused(
        "stride4",
        &g,
        &["m.", "POSITION (accessor 0)", "byte stride of 4, smaller than one element (12 bytes)"],
    );
    let mut g = Gltf::triangle();
    g.views =
        r#"[{"buffer":0,"byteOffset":0,"byteLength":36,"byteStride":8},{"buffer":0,"byteOffset":36,"byteLength":6}]"#
            .into();
    g.accessors = format!(
        r#"[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC2","min":[0,0,0],"max":[1,1,1]}},{INDICES}]"#
    );
    gltf_refused("vec2", &g, &["POSITION (accessor 0)", "holds VEC2 of FLOAT, but must hold VEC3 of FLOAT"]);
    // A stride beyond glTF's 252 (the gltf crate's validation), or not a multiple of 4.
    for (stride, part) in [(256, "bufferViews[0].byteStride: Invalid value"), (14, "byte stride of 14")] {
        let mut g = Gltf::triangle();
        g.views = format!(
            r#"[{{"buffer":0,"byteOffset":0,"byteLength":36,"byteStride":{stride}}},{{"buffer":0,"byteOffset":36,"byteLength":6}}]"#
        );
        gltf_refused("stride", &g, &[part]);
    }
}

#[test]
fn wrongly_typed_accessors_are_refused() {
    // Float indices (an `unreachable!()` in the gltf crate's reader).
    let mut g = Gltf::triangle();
    g.accessors = format!(r#"[{POSITIONS},{{"bufferView":1,"componentType":5126,"count":1,"type":"SCALAR"}}]"#);
    gltf_refused("float-indices", &g, &["indices (accessor 1)", "the indices are FLOAT"]);
    let mut g = Gltf::triangle();
    g.accessors = format!(r#"[{POSITIONS},{{"bufferView":1,"componentType":5122,"count":3,"type":"SCALAR"}}]"#);
    gltf_refused("short-indices", &g, &["the indices are SHORT"]);
    let mut g = Gltf::triangle();
    g.accessors = format!(r#"[{POSITIONS},{{"bufferView":1,"componentType":5123,"count":1,"type":"VEC3"}}]"#);
    gltf_refused("vec3-indices", &g, &["holds VEC3 of UNSIGNED_SHORT"]);
    // Positions as shorts, or normalized.
    let mut g = Gltf::triangle();
    g.accessors = format!(
        r#"[{{"bufferView":0,"componentType":5123,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,1]}},{INDICES}]"#
    );
    gltf_refused("short-positions", &g, &["holds VEC3 of UNSIGNED_SHORT, but must hold VEC3 of FLOAT"]);
    // An attribute naming an accessor that does not exist (the gltf crate's validation indexes
    // POSITION's accessor without a check).
    let mut g = Gltf::triangle();
    g.meshes = r#"[{"primitives":[{"attributes":{"POSITION":99},"indices":1}]}]"#.into();
    gltf_refused("missing-accessor", &g, &["refers to accessor 99, but the file has 2"]);
}

#[test]
fn counts_offsets_and_lengths_are_checked_against_the_bytes_present() {
    // More elements than the view holds.
    let mut g = Gltf::triangle();
    g.accessors = format!(
        r#"[{{"bufferView":0,"componentType":5126,"count":1000000000,"type":"VEC3","min":[0,0,0],"max":[1,1,1]}},{INDICES}]"#
    );
    gltf_refused("count", &g, &["1000000000 elements of 12 bytes", "do not fit in the 36 bytes of buffer view 0"]);
    // An offset near 2^64 does not wrap.
    let mut g = Gltf::triangle();
    g.accessors = format!(
        r#"[{{"bufferView":0,"byteOffset":18446744073709551600,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,1]}},{INDICES}]"#
    );
    gltf_refused("offset", &g, &["do not fit"]);
    // A view past the end of its buffer.
    let mut g = Gltf::triangle();
    g.views = r#"[{"buffer":0,"byteOffset":0,"byteLength":3600},{"buffer":0,"byteOffset":36,"byteLength":6}]"#.into();
    g.declared = Some(3636);
    gltf_refused("view", &g, &["buffer 0"]);
    let mut g = Gltf::triangle();
    g.views = r#"[{"buffer":0,"byteOffset":0,"byteLength":3600},{"buffer":0,"byteOffset":36,"byteLength":6}]"#.into();
    let dir = scratch("view-len");
    let name = g.write(&dir, "m");
    assert_refused(
        &dir,
        &format!("TriangleMesh(file: \"{name}\")"),
        &["buffer view 0 (bytes 0 + 3600) runs past the 44 bytes"],
    );
    // A buffer shorter than it declares.
    let mut g = Gltf::triangle();
    g.declared = Some(100);
    let dir = scratch("short-buffer");
    let name = g.write(&dir, "m");
    assert_refused(
        &dir,
        &format!("TriangleMesh(file: \"{name}\")"),
        &["buffer 0: holds 44 bytes, but the file declares 100"],
    );
}

#[test]
fn sparse_accessors_are_bounded_by_the_file() {
    // The issue's case: a 1 kB file whose sparse accessor has a count of 1e9 (12 GB of zeros).
    let sparse = |count: &str, n: u32, index_type: u32, offset: u32| {
        format!(
            r#"[{{"componentType":5126,"count":{count},"type":"VEC3","min":[0,0,0],"max":[1,1,1],"sparse":{{"count":{n},"indices":{{"bufferView":1,"byteOffset":{offset},"componentType":{index_type}}},"values":{{"bufferView":0}}}}}},{INDICES}]"#
        )
    };
    let mut g = Gltf::triangle();
    g.accessors = sparse("1000000000", 1, 5123, 0);
    let start = std::time::Instant::now();
    gltf_refused("sparse-huge", &g, &["POSITION (accessor 0)", "no buffer view and 1000000000 elements"]);
    assert!(start.elapsed().as_secs_f64() < 5.0, "refused before allocating");
    // More substitutions than elements.
    let mut g = Gltf::triangle();
    g.accessors = sparse("3", 1000, 5123, 0);
    gltf_refused("sparse-count", &g, &["substitutes 1000 elements of its 3"]);
    // A substituted index beyond the accessor (the third u16 index is 2; two elements).
    let mut g = Gltf::triangle();
    g.accessors = sparse("2", 1, 5123, 4);
    gltf_refused("sparse-index", &g, &["sparse index 2 is beyond its 2 elements"]);
    // Sparse indices that do not fit their view.
    let mut g = Gltf::triangle();
    g.accessors = sparse("3", 3, 5125, 0);
    gltf_refused("sparse-fit", &g, &["sparse indices", "do not fit"]);
    // A well-formed sparse accessor reads: the base positions with one vertex replaced.
    let mut g = Gltf::triangle();
    g.buffer.extend([0u8; 2]);
    g.buffer.extend(1u16.to_le_bytes());
    for c in [0f32, 0.0, 2.0] {
        g.buffer.extend(c.to_le_bytes());
    }
    g.views = r#"[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6},{"buffer":0,"byteOffset":46,"byteLength":2},{"buffer":0,"byteOffset":48,"byteLength":12}]"#.into();
    g.accessors = format!(
        r#"[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,2],"sparse":{{"count":1,"indices":{{"bufferView":2,"componentType":5123}},"values":{{"bufferView":3}}}}}},{INDICES}]"#
    );
    let dir = scratch("sparse-ok");
    let name = g.write(&dir, "m");
    let m = collidoscope::scene::import::import_mesh(&dir.join(&name), None, 1.0).unwrap();
    assert_eq!(m.vertices[1], Vec3::new(0.0, 0.0, 2.0));
}

#[test]
fn node_graphs_that_are_not_trees_are_refused() {
    // The issue's case: a node that lists itself as a child (walked for ever before).
    let mut g = Gltf::triangle();
    g.nodes = r#"[{"mesh":0,"children":[0]}]"#.into();
    gltf_refused("self-child", &g, &["node 0 is reached twice", "must form trees"]);
    let mut g = Gltf::triangle();
    g.nodes = r#"[{"children":[1]},{"mesh":0,"children":[0]}]"#.into();
    gltf_refused("cycle", &g, &["is reached twice"]);
    // A node with two parents doubles its subtree each level: refused at once.
    let mut g = Gltf::triangle();
    g.nodes = r#"[{"children":[2]},{"children":[2]},{"mesh":0}]"#.into();
    g.scenes = r#"[{"nodes":[0,1]}]"#.into();
    gltf_refused("two-parents", &g, &["node 2 is reached twice"]);
    // A child index that does not exist is the crate's validation error.
    let mut g = Gltf::triangle();
    g.nodes = r#"[{"mesh":0,"children":[7]}]"#.into();
    gltf_refused("bad-child", &g, &["not valid glTF"]);
}

#[test]
fn placing_one_mesh_many_times_is_bounded() {
    // 300,000 vertices placed by 14 nodes: 4.2 million, over the import's limit.
    let mut g = Gltf::triangle();
    g.buffer = vec![0; 12 * 300_000];
    g.views = r#"[{"buffer":0,"byteOffset":0,"byteLength":3600000}]"#.into();
    g.accessors =
        r#"[{"bufferView":0,"componentType":5126,"count":300000,"type":"VEC3","min":[0,0,0],"max":[0,0,0]}]"#.into();
    g.meshes = r#"[{"primitives":[{"attributes":{"POSITION":0}}]}]"#.into();
    g.nodes = format!("[{}]", vec![r#"{"mesh":0}"#; 14].join(","));
    g.scenes = format!("[{{\"nodes\":[{}]}}]", (0..14).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let dir = scratch("placed");
    let name = g.write(&dir, "m");
    assert_refused(&dir, &format!("TriangleMesh(file: \"{name}\")"), &["more than 4000000 vertices in all"]);
}

#[test]
fn buffers_and_uris_are_validated() {
    let dir = scratch("uris");
    let g = Gltf::triangle();
    g.write(&dir, "m");
    let with_uri = |uri: &str| {
        std::fs::write(dir.join("u.gltf"), g.json(&format!(r#"{{"byteLength":44,"uri":"{uri}"}}"#))).unwrap();
    };
    for uri in ["http://example.com/m.bin", "file:///etc/passwd", "/etc/passwd", ""] {
        with_uri(uri);
        assert_refused(&dir, "TriangleMesh(file: \"u.gltf\")", &["u.gltf: buffer 0", "is not a relative path"]);
    }
    with_uri("missing.bin");
    assert_refused(&dir, "TriangleMesh(file: \"u.gltf\")", &["buffer 0: cannot read", "missing.bin"]);
    // A folder, and a link to a device that never ends, are refused before they are read.
    std::fs::create_dir_all(dir.join("sub.bin")).unwrap();
    with_uri("sub.bin");
    assert_refused(&dir, "TriangleMesh(file: \"u.gltf\")", &["sub.bin", "a folder, not a regular file"]);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.bin")).unwrap();
        with_uri("zero.bin");
        assert_refused(&dir, "TriangleMesh(file: \"u.gltf\")", &["zero.bin", "not a regular file"]);
        // The mesh file itself, and the scene file, too.
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.obj")).unwrap();
        assert_refused(&dir, "TriangleMesh(file: \"zero.obj\")", &["zero.obj", "not a regular file"]);
        let e = Scene::load(dir.join("zero.obj")).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }
    with_uri("data:application/octet-stream,AAAA");
    assert_refused(&dir, "TriangleMesh(file: \"u.gltf\")", &["is not base64"]);
    with_uri("data:application/octet-stream;base64,@@@");
    assert_refused(&dir, "TriangleMesh(file: \"u.gltf\")", &["does not decode"]);
}

#[test]
fn damaged_glb_headers_and_chunks_are_refused() {
    let dir = scratch("glb");
    let good = Gltf::triangle().glb();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"glTF".to_vec(), "cut short (4 of 12 bytes)"),
        ([b"glTF".as_slice(), &2u32.to_le_bytes(), &4u32.to_le_bytes()].concat(), "declares 4 bytes in all"),
        ([b"glTF".as_slice(), &2u32.to_le_bytes(), &0u32.to_le_bytes()].concat(), "declares 0 bytes in all"),
        (good[..good.len() - 8].to_vec(), "not valid glTF"),
        (good[..40].to_vec(), "not valid glTF"),
    ];
    for (bytes, part) in cases {
        std::fs::write(dir.join("m.glb"), &bytes).unwrap();
        assert_refused(&dir, "TriangleMesh(file: \"m.glb\")", &["m.glb", part]);
    }
    // A JSON chunk whose length runs past the file.
    let mut b = good.clone();
    b[12..16].copy_from_slice(&100_000u32.to_le_bytes());
    std::fs::write(dir.join("m.glb"), &b).unwrap();
    assert_refused(&dir, "TriangleMesh(file: \"m.glb\")", &["not valid glTF"]);
}

// ---- OBJ ----

fn obj_refused(text: &str, parts: &[&str]) {
    let dir = scratch("obj");
    std::fs::write(dir.join("m.obj"), text).unwrap();
    assert_refused(&dir, "TriangleMesh(file: \"m.obj\")", parts);
}

const QUAD: &str = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\n";

#[test]
fn obj_truncated_faces_are_errors_at_their_line() {
    // The issue's case: `f 1 ` dropped the face and a ball fell through the floor.
    obj_refused(&format!("{QUAD}f 1 3 2\nf 1 "), &["m.obj:6: f has 1 vertex reference: a face needs at least 3"]);
    obj_refused(&format!("{QUAD}f 1 3 2\nf 1 4\n"), &["m.obj:6: f has 2 vertex references"]);
    obj_refused(&format!("{QUAD}f\n"), &["m.obj:5: f has 0 vertex references"]);
    obj_refused(&format!("{QUAD}f 1 3 2/\n"), &["m.obj:5", "\"2/\""]);
    obj_refused(&format!("{QUAD}f 1 3 x\n"), &["m.obj:5", "\"x\" is not a vertex reference"]);
    obj_refused(&format!("{QUAD}f 0 1 2\n"), &["m.obj:5", "\"0\" is not a vertex reference"]);
    obj_refused(&format!("{QUAD}f 1/1/1/1 2 3\n"), &["m.obj:5", "\"1/1/1/1\""]);
    obj_refused("v 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n", &["m.obj:1: v has 2 coordinates, it needs 3"]);
    obj_refused(&format!("{QUAD}vn 0 1\nf 1 3 2\n"), &["m.obj:5: vn has 2 coordinates"]);
    obj_refused(&format!("{QUAD}vt\nf 1 3 2\n"), &["m.obj:5: vt has no coordinates"]);
}

#[test]
fn obj_polylines_and_points_alone_are_not_a_floor() {
    // The issue's case: `l 1 2 3 4` alone became a floor.
    obj_refused(&format!("{QUAD}l 1 2 3 4\n"), &["m.obj:5: the file has polylines (l) but no faces (f)"]);
    obj_refused(&format!("{QUAD}p 1 2 3\n"), &["m.obj:5: the file has points (p) but no faces"]);
    obj_refused(&format!("{QUAD}l 1\n"), &["m.obj:5: l has 1 vertex reference: a polyline needs at least 2"]);
    obj_refused(&format!("{QUAD}p\n"), &["m.obj:5: p has 0 vertex references: a point needs at least 1"]);
    // Beside faces, they are ignored.
    let dir = scratch("obj-mixed");
    std::fs::write(dir.join("m.obj"), format!("{QUAD}l 1 2 3\np 4\nf 1 3 2\nf 1 4 3\n")).unwrap();
    let s = load_with(&dir, "TriangleMesh(file: \"m.obj\")").unwrap();
    assert!(
        matches!(&s.bodies[0].shape, collidoscope::scene::ShapeDesc::TriangleMesh { indices, .. } if indices.len() == 2)
    );
}

#[test]
fn obj_every_statement_kind() {
    // Every statement read, every reference form, relative indices and comments: two triangles.
    let all = "# a comment\nmtllib m.mtl\no floor\ng part\ns off\nusemtl stone\n\
               v 0 0 0\nv 1 0 0 # trailing comment\nv 1 0 1\nv 0 0 1\nvt 0 0\nvt 1 0\nvt 1 1\n\
               vn 0 1 0\nvp 0.5\nf 1/1/1 3/3/1 2/2/1\nf -4//1 -1//1 -2//1\nl 1 2\np 3\n";
    let dir = scratch("obj-all");
    std::fs::write(dir.join("m.obj"), all).unwrap();
    let s = load_with(&dir, "TriangleMesh(file: \"m.obj\")").unwrap();
    assert!(
        matches!(&s.bodies[0].shape, collidoscope::scene::ShapeDesc::TriangleMesh { indices, .. } if indices.len() == 2)
    );
    // Statements not read say so at their line, free-form geometry apart from typos.
    obj_refused(&format!("{QUAD}f 1 3 2\ncurv 0 1 1 2\n"), &["m.obj:6: \"curv\" is not read (free-form geometry"]);
    obj_refused(&format!("{QUAD}f 1 3 2\nfoo 1 2\n"), &["m.obj:6: \"foo\" is not an OBJ statement"]);
    obj_refused(&format!("{QUAD}F 1 3 2\n"), &["m.obj:5: \"F\" is not an OBJ statement"]);
}

// ---- mesh and height-field fields ----

#[test]
fn height_field_cell_has_a_range() {
    let dir = scratch("cell");
    // The issue's cases: 1e-45 (everything fell through) and 3e38.
    for cell in ["1e-45", "3e38", "0", "-1", "5e-5", "2e4"] {
        assert_refused(
            &dir,
            &format!("HeightField(cell: {cell}, heights: [[0, 0], [0, 0]])"),
            &["bodies[0].shape", "cell:", "out of range", "between 0.0001 and 10000 m"],
        );
    }
    for cell in ["1e-4", "1e4", "0.5"] {
        load_with(&dir, &format!("HeightField(cell: {cell}, heights: [[0, 0], [0, 0]])")).unwrap();
    }
    // The field's corners must stay within the coordinate limit: 101 columns 1e4 m apart span 1e6 m.
    let row = format!("[{}]", vec!["0"; 101].join(","));
    assert_refused(&dir, &format!("HeightField(cell: 1e4, heights: [{row}, {row}])"), &["the field spans 1e6 m"]);
}

#[test]
fn mesh_field_numbers_out_of_range_name_their_field() {
    let dir = scratch("fields");
    std::fs::write(dir.join("m.obj"), format!("{QUAD}f 1 3 2\nf 1 4 3\n")).unwrap();
    for scale in ["1e-7", "1e7", "0", "-1"] {
        assert_refused(&dir, &format!("TriangleMesh(file: \"m.obj\", scale: {scale})"), &["scale:", "out of range"]);
    }
    for (d, field) in [
        ("resolution: 7", "decomposition.resolution"),
        ("resolution: 257", "decomposition.resolution"),
        ("max_hulls: 0", "decomposition.max_hulls"),
        ("max_hulls: 257", "decomposition.max_hulls"),
    ] {
        assert_refused(&dir, &format!("Compound(file: \"m.obj\", decomposition: ({d}))"), &[field, "out of range"]);
    }
    assert_refused(
        &dir,
        "TriangleMesh(vertices: [(0, 0, 0), (2e5, 0, 0), (0, 0, 1)], indices: [(0, 2, 1)])",
        &["vertices[1]", "beyond ±100000"],
    );
    assert_refused(&dir, "HeightField(cell: 1, heights: [[0, 2e5], [0, 0]])", &["heights[0][1]"]);
    assert_refused(
        &dir,
        "TriangleMesh(vertices: [(0, 0, 0), (1, 0, 0), (0, 0, 1)], indices: [(0, 2, 3)])",
        &["vertex 3"],
    );
}

#[test]
fn an_edge_shared_by_three_triangles_gets_no_neighbour() {
    // docs/meshes.md: such an edge is a boundary to each of the three (a fin on a floor).
    let v = vec![
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.5, 0.0, 1.0),
        Vec3::new(0.5, 0.0, -1.0),
        Vec3::new(0.5, 1.0, 0.0),
    ];
    let mesh = TriangleMesh::new(v.clone(), vec![[0, 2, 1], [1, 3, 0], [0, 1, 4]]).expect("a fin is accepted");
    // Edge 0-1 is edge 2 of triangle 0, edge 1 of triangle 1 and edge 0 of triangle 2.
    assert_eq!([mesh.adjacency()[0][2], mesh.adjacency()[1][1], mesh.adjacency()[2][0]], [NO_NEIGHBOUR; 3]);
    // Two neighbours wound the same way are still refused.
    let e = TriangleMesh::new(v, vec![[0, 2, 1], [1, 0, 3]]).unwrap_err().to_string();
    assert!(e.contains("wind inconsistently"), "{e}");
}

// ---- shared imports and the pile budget ----

/// A 64 x 64-cell grid floor (8,192 triangles) as OBJ.
fn grid_obj(n: usize) -> String {
    let mut s = String::new();
    for z in 0..=n {
        for x in 0..=n {
            s.push_str(&format!("v {} {} {}\n", x as f32 * 0.1, ((x * 7 + z * 3) % 5) as f32 * 0.01, z as f32 * 0.1));
        }
    }
    for z in 0..n {
        for x in 0..n {
            let i = z * (n + 1) + x + 1;
            s.push_str(&format!("f {} {} {}\nf {} {} {}\n", i, i + n + 1, i + 1, i + 1, i + n + 1, i + n + 2));
        }
    }
    s
}

#[test]
fn six_hundred_bodies_naming_one_mesh_file_share_one_mesh() {
    let dir = scratch("six-hundred");
    std::fs::write(dir.join("floor.obj"), grid_obj(64)).unwrap();
    let bodies: String = (0..600)
        .map(|i| {
            format!(
                "(kind: Static, shape: TriangleMesh(file: \"floor.obj\"), position: ({}, 0, {})),\n",
                (i % 25) as f32 * 10.0,
                (i / 25) as f32 * 10.0
            )
        })
        .collect();
    let path = dir.join("scene.ron");
    std::fs::write(&path, format!("(bodies: [{bodies}(shape: Sphere(radius: 0.5), position: (3, 2, 3))])")).unwrap();
    // The file is read and its BVH built once, whatever the number of bodies naming it.
    let world = Scene::load(&path).unwrap().build().unwrap();
    let meshes: Vec<_> = world
        .bodies()
        .iter()
        .filter_map(|b| match &b.shape {
            Shape::TriangleMesh(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(meshes.len(), 600);
    assert!(meshes.iter().all(|m| std::sync::Arc::ptr_eq(m, &meshes[0])), "one mesh shared by every body");
}

#[test]
fn the_pile_budget_counts_only_pairs_that_can_collide() {
    let dir = scratch("pile");
    let path = dir.join("pile.ron");
    // 2,000 static spheres at one point overlap in 1,999,000 pairs, none of which can collide.
    for kind in ["Static", "Kinematic"] {
        std::fs::write(
            &path,
            format!(
                "(bodies: [(kind: {kind}, shape: Sphere(radius: 1), position: (0, 0, 0))], generators: [], \
                 settings: ()) "
            ),
        )
        .unwrap();
        let mut scene = Scene::load(&path).unwrap();
        let one = scene.bodies[0].clone();
        scene.bodies = vec![one; 2000];
        scene.bodies.push(collidoscope::scene::BodyDesc::new(
            collidoscope::scene::ShapeDesc::Sphere { radius: 0.5 },
            Vec3::new(0.0, 3.0, 0.0),
        ));
        let mut world = scene.build().unwrap_or_else(|e| panic!("{kind}: {e}"));
        world.step();
    }
    // 20,000 static spheres at one point (2e8 overlapping boxes) are refused by the broad
    // phase's budget at once, not after minutes and gigabytes.
    let mut scene = Scene::load(&path).unwrap();
    let one = scene.bodies[0].clone();
    scene.bodies = vec![one; 20_000];
    let start = std::time::Instant::now();
    let e = scene.build().err().expect("refused").to_string();
    assert!(e.contains("more than 4000000 pairs of the boxes") && e.contains("static or kinematic"), "{e}");
    assert!(start.elapsed().as_secs_f64() < 30.0);
    // A dynamic pile is refused, naming the file.
    std::fs::write(&path, "(generators: [Grid(counts: (5000, 1, 1), shape: Sphere(radius: 0.1), spacing: (0, 0, 0))])")
        .unwrap();
    let e = Scene::load(&path).unwrap().build().err().expect("refused").to_string();
    assert!(e.starts_with(&format!("{}: bodies: ", path.display())) && e.contains("piled together"), "{e}");
}

// ---- regressions found by the fuzzers below ----

#[test]
fn fuzz_finds_obj_references_beyond_the_elements_defined() {
    // tobj multiplied a texture index of 2^63 - 1 by 2 and overflowed (fuzz_obj).
    obj_refused(
        &format!("{QUAD}vt 0 0\nf 1/9223372036854775807 2/1 3/1\n"),
        &["m.obj:6: f refers to texture coordinate 9223372036854775807, but 1 texture coordinates are defined"],
    );
    obj_refused(&format!("{QUAD}f 1//2 2//1 3//1\n"), &["m.obj:5: f refers to normal 2, but 0 normals are defined"]);
    obj_refused(&format!("{QUAD}f -5 1 2\n"), &["m.obj:5: f refers to vertex -5, but 4 vertices are defined"]);
}

#[test]
fn fuzz_finds_names_with_newlines_kept_on_one_line() {
    // A glTF node or mesh name, an object asked for, or a file name holding a newline made
    // messages of several lines (fuzz_gltf_and_glb, fuzz_scene_ron).
    let mut g = Gltf::triangle();
    g.nodes = r#"[{"mesh":0,"name":"tri\nangle"}]"#.into();
    g.meshes = r#"[{"name":"m\nesh","primitives":[{"attributes":{"POSITION":0},"indices":1}]}]"#.into();
    let dir = scratch("newlines");
    let name = g.write(&dir, "m");
    assert_refused(
        &dir,
        &format!("TriangleMesh(file: \"{name}\", object: \"no\\nne\")"),
        &["no object named \"no\\nne\"; the file has \"m\\nesh\", \"tri\\nangle\""],
    );
    assert_refused(&dir, "TriangleMesh(file: \"a\\nb.obj\")", &["a\\nb.obj"]);
}

// ---- fuzzing ----

/// Cases per fuzz target: `HOSTILE_FUZZ_CASES`, or a CI-sized default; a fixed seed, which
/// `HOSTILE_FUZZ_SEED` changes for a longer hunt.
fn fuzz_cases() -> u32 {
    std::env::var("HOSTILE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48)
}

/// Applies byte-level mutations: each `(kind, at, byte)` replaces, inserts or deletes a byte,
/// writes an interesting number, copies a stretch elsewhere, or cuts the text at a place.
fn mutate(base: &[u8], edits: &[(u8, f64, u8)]) -> Vec<u8> {
    const SYNTAX: &[u8] = b"0123456789-.eE+/ \n[]{}\",:#fvlpgo";
    const NUMBERS: &[&str] =
        &["0", "-1", "1e30", "-1e30", "4294967295", "18446744073709551615", "65536", "NaN", "inf", "1e-45", "99999"];
    let mut b = base.to_vec();
    for &(kind, at, byte) in edits {
        let i = ((b.len() as f64) * at) as usize;
        let i = i.min(b.len());
        match kind % 8 {
            0 if i < b.len() => b[i] = byte,
            1 if i < b.len() => b[i] = SYNTAX[byte as usize % SYNTAX.len()],
            2 if i < b.len() => {
                b.remove(i);
            }
            3 => b.insert(i, SYNTAX[byte as usize % SYNTAX.len()]),
            4 | 5 => {
                let n = NUMBERS[byte as usize % NUMBERS.len()].as_bytes();
                let end = (i..b.len()).find(|&k| !b[k].is_ascii_digit() && b[k] != b'.').unwrap_or(b.len());
                b.splice(i..end, n.iter().copied());
            }
            6 => {
                // A copy of a stretch of the file elsewhere (a repeated node, face or body).
                let len = (byte as usize * 4).min(b.len() - i.min(b.len()));
                let piece: Vec<u8> = b[i..i + len].to_vec();
                let at = (i * 7919 + byte as usize) % (b.len() + 1);
                b.splice(at..at, piece);
            }
            _ => b.truncate(i),
        }
    }
    b
}

/// Imports `bytes` as the mesh file `file` (beside the shipped assets, so external glTF buffers
/// resolve): either an error of one line naming the file, or a mesh that the mesh and hull
/// builds accept or refuse without a panic.
fn survives(file: &str, bytes: Vec<u8>) -> Result<(), TestCaseError> {
    let path = assets().join(file);
    match import_mesh_bytes(&path, bytes, None, 1.0) {
        Ok(m) => {
            let _ = TriangleMesh::new(m.vertices.clone(), m.triangles.clone());
            let _ = collidoscope::geometry::ConvexHull::new(&m.vertices);
        }
        Err(e) => {
            let e = e.to_string();
            prop_assert_eq!(e.lines().count(), 1, "one line: {}", e);
            prop_assert!(e.starts_with(&path.display().to_string()), "names the file: {}", e);
        }
    }
    Ok(())
}

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/assets")
}

fn edits() -> impl Strategy<Value = Vec<(u8, f64, u8)>> {
    prop::collection::vec((any::<u8>(), 0.0f64..1.0, any::<u8>()), 1..6)
}

/// The every-statement OBJ of [`obj_every_statement_kind`], shorter.
fn statements_obj() -> Vec<u8> {
    format!("{QUAD}vt 0 0\nvn 0 1 0\nf 1/1/1 3/1/1 2/1/1\nf -4//1 -1//1 -2//1\nl 1 2\np 3\n").into_bytes()
}

proptest! {
    #![proptest_config(crate::seeded::config(fuzz_cases(), 0x5eed_0038, None, Some("HOSTILE_FUZZ_SEED")))]

    /// Mutated OBJ files: ramp.obj and the every-statement file.
    #[test]
    fn fuzz_obj(edits in edits(), which in any::<bool>()) {
        let base = if which { std::fs::read(assets().join("ramp.obj")).unwrap() } else { statements_obj() };
        survives("fuzz.obj", mutate(&base, &edits))?;
    }

    /// Mutated glTF JSON (rocks.gltf, whose rocks.bin is read from the assets) and GLB bytes
    /// (rocks.glb, and the one-triangle template with its buffer in the BIN chunk).
    #[test]
    fn fuzz_gltf_and_glb(edits in edits(), which in 0u8..3) {
        match which {
            0 => survives("fuzz.gltf", mutate(&std::fs::read(assets().join("rocks.gltf")).unwrap(), &edits))?,
            1 => survives("fuzz.glb", mutate(&std::fs::read(assets().join("rocks.glb")).unwrap(), &edits))?,
            _ => survives("fuzz.glb", mutate(&Gltf::triangle().glb(), &edits))?,
        }
    }

    /// Mutated scene files: every shipped scene, any bytes, parsed as if in scenes/ (so the
    /// mesh files they name resolve).
    #[test]
    fn fuzz_scene_ron(edits in edits(), pick in any::<prop::sample::Index>()) {
        let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&scenes)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ron"))
            .collect();
        files.sort();
        let file = pick.get(&files);
        let bytes = mutate(&std::fs::read(file).unwrap(), &edits);
        let path = scenes.join("fuzz.ron");
        // Bytes that are not UTF-8 are the loader's first check (read_text); parse takes text.
        let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
        match Scene::parse(&text, &path) {
            Ok(scene) => {
                if scene.expanded_bodies().len() <= 1500
                    && let Ok(mut w) = scene.build()
                {
                    w.step();
                }
            }
            Err(e) => {
                let e = e.to_string();
                prop_assert_eq!(e.lines().count(), 1, "one line: {}", e);
                prop_assert!(e.starts_with(&path.display().to_string()), "{}", e);
            }
        }
    }
}
