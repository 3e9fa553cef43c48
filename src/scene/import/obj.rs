//! Wavefront OBJ through `tobj`: polygons triangulated. Every statement is checked first
//! ([`statements`]), so that nothing `tobj` would skip silently (a face of fewer than three
//! vertices, an unknown statement) alters the mesh; points and polylines are refused when the
//! file has no face, and otherwise ignored.

use super::{ImportError, Part, select};
use crate::math::Vec3;
use std::path::Path;

fn options() -> tobj::LoadOptions {
    tobj::LoadOptions { triangulate: true, ignore_points: true, ignore_lines: true, ..Default::default() }
}

fn parse(bytes: &[u8]) -> Result<Vec<tobj::Model>, tobj::LoadError> {
    // Materials play no part in collision: a missing .mtl is not an error.
    tobj::load_obj_buf(&mut std::io::Cursor::new(bytes), &options(), |_| Ok(Default::default())).map(|(m, _)| m)
}

pub(super) fn read(path: &Path, bytes: Vec<u8>, object: Option<&str>) -> Result<Vec<Part>, ImportError> {
    non_finite(&bytes).and_then(|()| statements(&bytes)).map_err(|(line, message)| ImportError::Parse {
        path: path.into(),
        line: Some(line),
        message,
    })?;
    // `tobj` reads `l` as a face (a polyline of three vertices becomes a triangle): points and
    // polylines are blanked, their lines kept so that line numbers stay the file's.
    let bytes = without_points_and_lines(&bytes);
    let models = parse(&bytes).map_err(|e| ImportError::Parse {
        path: path.into(),
        line: failing_line(&bytes),
        message: e.to_string(),
    })?;
    let names: Vec<String> = models.iter().map(|m| m.name.clone()).collect();
    let picked = select(path, object, &names)?;
    Ok(models
        .into_iter()
        .zip(picked)
        .filter(|(_, p)| *p)
        .map(|(m, _)| Part {
            name: format!("object \"{}\"", m.name),
            vertices: m.mesh.positions.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])).collect(),
            triangles: m.mesh.indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        })
        .collect())
}

/// The file with every `l` and `p` statement's line emptied.
fn without_points_and_lines(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        let head = line.split(|b| b.is_ascii_whitespace()).find(|w| !w.is_empty());
        if !matches!(head, Some(b"l") | Some(b"p")) {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The line `tobj` stopped at, which its errors do not carry: the fewest leading lines that
/// fail to parse (a prefix of a file that parses, parses).
fn failing_line(bytes: &[u8]) -> Option<usize> {
    let ends: Vec<usize> =
        bytes.iter().enumerate().filter(|&(_, &b)| b == b'\n').map(|(i, _)| i + 1).chain([bytes.len()]).collect();
    let fails = |lines: usize| parse(&bytes[..ends[lines - 1]]).is_err();
    let (mut lo, mut hi) = (1, ends.len());
    if !fails(hi) {
        return None;
    }
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fails(mid) { hi = mid } else { lo = mid + 1 }
    }
    Some(lo)
}

/// The first `v` line with a coordinate that parses to infinity or NaN (`tobj` accepts them and
/// renumbers vertices, so the line is the useful place to name).
fn non_finite(bytes: &[u8]) -> Result<(), (usize, String)> {
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(line);
        let mut words = text.split_whitespace();
        if words.next() != Some("v") {
            continue;
        }
        let xyz: Vec<f32> = words.take(3).filter_map(|w| w.parse().ok()).collect();
        if xyz.iter().any(|c| !c.is_finite()) {
            return Err((i + 1, format!("vertex {} is not finite", text.trim())));
        }
    }
    Ok(())
}

/// The statements read: geometry (`v`, `vt`, `vn`, `vp`, `f`, `l`, `p`), grouping (`o`, `g`,
/// `s`) and materials (`mtllib`, `usemtl`, ignored). Any other statement (free-form curves and
/// surfaces, a typo) is an error at its line, as is a face of fewer than three vertices, a
/// polyline of fewer than two, a point or vertex reference that is not `V`, `V/T`, `V//N` or
/// `V/T/N` with whole numbers, a `v` or `vn` with fewer than three coordinates, and a file whose
/// only elements are points and polylines (it has no surface to collide with).
pub(super) fn statements(bytes: &[u8]) -> Result<(), (usize, String)> {
    let (mut faces, mut first_other) = (0usize, None);
    // Vertices, texture coordinates and normals defined so far: references count back from
    // these (negative indices) or up to them.
    let mut defined = [0i64; 3];
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(line);
        let text = text.split('#').next().unwrap_or_default();
        let mut words = text.split_whitespace();
        let Some(head) = words.next() else { continue };
        let args: Vec<&str> = words.collect();
        let n = i + 1;
        let n_line = n;
        let refs = |least: usize, what: &str| -> Result<(), (usize, String)> {
            if args.len() < least {
                return Err((
                    n,
                    format!(
                        "{head} has {} vertex reference{}: a {what} needs at least {least} (the line may be cut short)",
                        args.len(),
                        if args.len() == 1 { "" } else { "s" }
                    ),
                ));
            }
            for a in &args {
                let parts: Vec<&str> = a.split('/').collect();
                let whole = |p: &str| p.parse::<i64>().is_ok_and(|v| v != 0);
                // V, V/T, V//N or V/T/N: only the middle part may be empty.
                let ok = match parts.as_slice() {
                    [v] => whole(v),
                    [v, t] => whole(v) && whole(t),
                    [v, t, n] => whole(v) && (t.is_empty() || whole(t)) && whole(n),
                    _ => false,
                };
                if !ok {
                    return Err((
                        n,
                        format!(
                            "{head}: {a:?} is not a vertex reference (V, V/T, V//N or V/T/N, non-zero whole numbers)"
                        ),
                    ));
                }
                // Each index names an element defined above: 1 to n, or -n to -1.
                for (k, p) in parts.iter().enumerate().filter(|(_, p)| !p.is_empty()) {
                    let (what, whats) =
                        [("vertex", "vertices"), ("texture coordinate", "texture coordinates"), ("normal", "normals")]
                            [k.min(2)];
                    let n = defined[k.min(2)];
                    if let Ok(i) = p.parse::<i64>()
                        && i != 0
                        && (i > n || i < -n)
                    {
                        return Err((
                            n_line,
                            format!("{head} refers to {what} {i}, but {n} {whats} are defined before this line"),
                        ));
                    }
                }
            }
            Ok(())
        };
        match head {
            "v" | "vn" if args.len() < 3 => {
                let s = if args.len() == 1 { "" } else { "s" };
                return Err((
                    n,
                    format!("{head} has {} coordinate{s}, it needs 3 (the line may be cut short)", args.len()),
                ));
            }
            "vt" | "vp" if args.is_empty() => return Err((n, format!("{head} has no coordinates"))),
            "v" => defined[0] += 1,
            "vt" => defined[1] += 1,
            "vn" => defined[2] += 1,
            "vp" | "o" | "g" | "s" | "mtllib" | "usemtl" => {}
            "f" => {
                refs(3, "face")?;
                faces += 1;
            }
            "l" => {
                refs(2, "polyline")?;
                first_other.get_or_insert((n, "polylines (l)"));
            }
            "p" => {
                refs(1, "point")?;
                first_other.get_or_insert((n, "points (p)"));
            }
            other => {
                let what = if [
                    "cstype",
                    "deg",
                    "bmat",
                    "step",
                    "curv",
                    "curv2",
                    "surf",
                    "parm",
                    "trim",
                    "hole",
                    "scrv",
                    "sp",
                    "end",
                    "con",
                    "mg",
                    "bevel",
                    "c_interp",
                    "d_interp",
                    "lod",
                    "usemap",
                    "maplib",
                    "shadow_obj",
                    "trace_obj",
                    "ctech",
                    "stech",
                ]
                .contains(&other)
                {
                    "is not read (free-form geometry and display attributes are not supported)"
                } else {
                    "is not an OBJ statement"
                };
                return Err((
                    n,
                    format!(
                        "\"{}\" {what}; the statements read are v, vt, vn, vp, f, l, p, o, g, s, mtllib and usemtl",
                        other.chars().take(40).collect::<String>().escape_debug()
                    ),
                ));
            }
        }
    }
    match first_other {
        Some((line, what)) if faces == 0 => {
            Err((line, format!("the file has {what} but no faces (f): a collision mesh is made of faces")))
        }
        _ => Ok(()),
    }
}
