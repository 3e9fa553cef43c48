//! Wavefront OBJ through `tobj`: polygons triangulated, points and lines ignored.

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
    non_finite(&bytes).map_err(|(line, message)| ImportError::Parse {
        path: path.into(),
        line: Some(line),
        message,
    })?;
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
