//! With the `jolt` feature: compiles the Jolt shim (src/peer/jolt/shim.cpp) against the Jolt
//! headers joltc-sys bundles, with the defines and instruction sets Jolt's own CMake build used
//! (they must match, or the two halves disagree on Jolt's types), and links the C++ library.
//! Without it: nothing.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "jolt")]
    jolt::build();
}

#[cfg(feature = "jolt")]
mod jolt {
    use std::path::PathBuf;
    use std::process::Command;

    pub fn build() {
        println!("cargo:rerun-if-changed=src/peer/jolt/shim.cpp");
        println!("cargo:rerun-if-env-changed=JOLT_PHYSICS_DIR");
        let root = jolt_physics_dir();
        let mut b = cc::Build::new();
        b.cpp(true)
            .file("src/peer/jolt/shim.cpp")
            .include(&root)
            .std("c++17")
            .opt_level(3)
            .debug(false)
            .warnings(false)
            // The defines of joltc-sys's CMake build of Jolt (Release, default options; Jolt's
            // RegisterTypes aborts if its feature bits differ from the caller's).
            .define("NDEBUG", None)
            .define("JPH_DEBUG_RENDERER", None)
            .define("JPH_PROFILE_ENABLED", None);
        if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
            for d in [
                "JPH_USE_AVX2",
                "JPH_USE_AVX",
                "JPH_USE_SSE4_1",
                "JPH_USE_SSE4_2",
                "JPH_USE_LZCNT",
                "JPH_USE_TZCNT",
                "JPH_USE_F16C",
                "JPH_USE_FMADD",
            ] {
                b.define(d, None);
            }
            for f in ["-mavx2", "-mbmi", "-mpopcnt", "-mlzcnt", "-mf16c", "-mfma", "-mfpmath=sse"] {
                b.flag(f);
            }
        }
        b.flag_if_supported("-ffp-contract=off");
        // Also links the C++ standard library, which joltc-sys's Jolt needs and does not link.
        b.compile("collidoscope_jolt_shim");
    }

    /// joltc-sys's JoltPhysics directory in cargo's registry, at the version `Cargo.lock` names:
    /// where cargo unpacked the source it builds. `cargo metadata` (below) would need every
    /// package of the resolve downloaded, the GUI's and the tests' too, which a first
    /// `cargo build --no-default-features --features jolt` has not done.
    fn registry_dir() -> Option<PathBuf> {
        let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
        let lock = std::fs::read_to_string(manifest.join("Cargo.lock")).ok()?;
        let mut lines = lock.lines().skip_while(|l| l.trim() != "name = \"joltc-sys\"");
        lines.next()?;
        let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?.to_string();
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
        std::fs::read_dir(home.join("registry/src"))
            .ok()?
            .flatten()
            .map(|index| index.path().join(format!("joltc-sys-{version}/JoltC/JoltPhysics")))
            .find(|dir| dir.join("Jolt/Jolt.h").exists())
    }

    /// The JoltPhysics directory of the joltc-sys source cargo resolved (its `Jolt/` headers),
    /// or `JOLT_PHYSICS_DIR` if set.
    fn jolt_physics_dir() -> PathBuf {
        if let Some(dir) = std::env::var_os("JOLT_PHYSICS_DIR") {
            return PathBuf::from(dir);
        }
        if let Some(dir) = registry_dir() {
            return dir;
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        let target = std::env::var("TARGET").expect("cargo sets TARGET");
        // Offline, for this platform only (others' packages may not be downloaded), with the
        // feature that pulls joltc-sys in.
        let out = Command::new(cargo)
            .args([
                "metadata",
                "--format-version",
                "1",
                "--offline",
                "--features",
                "jolt",
                "--filter-platform",
                &target,
            ])
            .current_dir(&manifest)
            .output()
            .expect("build.rs: could not run `cargo metadata` to find joltc-sys's Jolt headers; set JOLT_PHYSICS_DIR");
        let json = String::from_utf8_lossy(&out.stdout);
        let key = "\"manifest_path\":\"";
        let path = json
            .match_indices(key)
            .map(|(at, _)| &json[at + key.len()..])
            .filter_map(|rest| rest.split('"').next())
            .find(|p| p.contains("joltc-sys-"))
            .unwrap_or_else(|| {
                panic!(
                    "build.rs: joltc-sys not in `cargo metadata`; set JOLT_PHYSICS_DIR ({})",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        let dir = PathBuf::from(path).parent().expect("a manifest has a directory").join("JoltC/JoltPhysics");
        assert!(dir.join("Jolt/Jolt.h").exists(), "build.rs: no Jolt/Jolt.h under {}", dir.display());
        dir
    }
}
