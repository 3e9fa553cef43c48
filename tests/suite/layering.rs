//! The engine's top-level modules depend on each other one way only: this reads every
//! `crate::` path in the library's non-test code under `src/`, draws an edge from the module a
//! file belongs to to the module it names, and fails on any cycle, printing it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library's top-level module of a file under `src/`, or `None` for the crate roots and the
/// command line (`main.rs` and `cli/` belong to the binary, whose `crate::` is another crate).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main" | "cli")).then(|| name.to_string())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments and without `#[cfg(test)]` items (a test module inline,
/// or the line that declares one kept in its own file).
fn non_test_code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        if t.starts_with("#[cfg(test)]") {
            // Skip the item that follows: up to its `;` or its matching closing brace.
            let mut depth = 0i32;
            let mut opened = false;
            for next in lines.by_ref() {
                let code = next.split("//").next().unwrap_or("");
                depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
                opened |= code.contains('{');
                if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// The top-level modules named by `crate::` paths in `code`, including every branch of a
/// `crate::{a, b::c}` group.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (at, _) in code.match_indices("crate::") {
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        found.insert(ident(group[start..i].trim_start()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.insert(ident(group[start..i].trim_start()));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found.retain(|m| !m.is_empty() && m != "self");
    found
}

/// The items `lib.rs` re-exports at the crate root (`pub use world::{StepProfile, World};`), each
/// with the module it comes from, so that `crate::World` counts as a use of `world`.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for line in lib.lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else { continue };
        let Some((module, rest)) = path.split_once("::") else { continue };
        let rest = rest.trim_end_matches(';');
        let names = rest.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let name = name.trim().rsplit("::").next().unwrap_or("").trim();
            if !name.is_empty() {
                items.insert(name.to_string(), module.to_string());
            }
        }
    }
    items
}

/// Edges `from -> {to}` between the library's top-level modules.
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let reexports = root_reexports(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some(from) = module_of(&src, file) else { continue };
        if file.file_name().is_some_and(|n| n == "tests.rs" || n.to_string_lossy().ends_with("_tests.rs")) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let edges = graph.entry(from.clone()).or_default();
        for name in named_modules(&non_test_code(&text)) {
            let to = reexports.get(&name).cloned().unwrap_or(name);
            if to != from {
                edges.insert(to);
            }
        }
    }
    graph
}

/// A cycle through the graph, as the list of its modules, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(2) => return None,
            Some(1) => {
                let from = path.iter().position(|n| n == node).unwrap();
                let mut cycle = path[from..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(node.to_string(), 1);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    graph.keys().find_map(|n| visit(n, graph, &mut state, &mut Vec::new()))
}

#[test]
fn no_cycle_among_the_engines_top_level_modules() {
    let graph = module_graph();
    assert!(graph.len() >= 10, "too few modules found under src/: {:?}", graph.keys());
    if let Some(cycle) = find_cycle(&graph) {
        let edges: Vec<String> = graph.iter().map(|(m, to)| format!("  {m} -> {to:?}")).collect();
        panic!("module cycle: {}\nall edges:\n{}", cycle.join(" -> "), edges.join("\n"));
    }
}

/// `contacts/`, the owner of per-pair state, is the layer between the world and what it calls
/// per pair: the world uses it, it uses the solver and CCD, and neither they nor anything below
/// them reaches up to it.
#[test]
fn the_contacts_layer_sits_between_the_world_and_the_solver_and_ccd() {
    let graph = module_graph();
    let uses = |from: &str, to: &str| graph.get(from).is_some_and(|t| t.contains(to));
    assert!(uses("world", "contacts"), "world does not use contacts: {:?}", graph.get("world"));
    for below in ["dynamics", "ccd", "narrowphase"] {
        assert!(uses("contacts", below), "contacts does not use {below}: {:?}", graph.get("contacts"));
    }
    let below = ["dynamics", "ccd", "narrowphase", "broadphase", "settings", "geometry", "simd", "parallel", "math"];
    for m in below {
        assert!(!uses(m, "contacts"), "{m} uses contacts, a layer above it");
    }
    for above in ["world", "scene", "record", "session", "sweep"] {
        assert!(!uses("contacts", above), "contacts uses {above}, a layer above it");
    }
}

#[test]
fn the_cycle_finder_finds_cycles_and_groups() {
    let code = "use crate::{geometry::Shape, math::{Real, Vec3}};\nlet x = crate::world::MAX;\n// crate::app\n";
    let named = named_modules(&non_test_code(code));
    assert_eq!(named.into_iter().collect::<Vec<_>>(), ["geometry", "math", "world"]);
    let skipped = non_test_code("use crate::a::X;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\nuse crate::c;\n");
    assert_eq!(named_modules(&skipped).into_iter().collect::<Vec<_>>(), ["a", "c"]);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    assert_eq!(find_cycle(&g), None);
    let roots = root_reexports("pub use world::{StepProfile, World};\npub use scene::Scene;\n");
    assert_eq!(roots.get("World").map(String::as_str), Some("world"));
    assert_eq!(roots.get("Scene").map(String::as_str), Some("scene"));
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(find_cycle(&g), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
}
