//! Delta debugging: the smallest set of a scene's bodies (generators expanded into their
//! members) whose run still shows an event.

use super::{
    Before, CauseKind, Change, DiagnoseError, FirstContact, Symptom, Watch, body_speeds, cause_of, far_bodies,
};
use crate::dynamics::joints::Joint;
use crate::record::EventDetector;
use crate::scene::{BodyDesc, JointDesc, Scene};

/// The smallest case [`shrink`] found.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The scene with only the bodies kept, generators expanded.
    pub scene: Scene,
    /// The original index of each body kept, in order.
    pub kept: Vec<u32>,
    /// The step the event happens at in the smaller scene.
    pub step: u64,
    /// The body the event happened to, as an index into the smaller scene.
    pub body: Option<u32>,
    /// The event's cause in the original scene, which every smaller case kept had too.
    pub cause: CauseKind,
    /// The setting that removes the event from the original scene, set from the start, and
    /// from every smaller case kept: the first of the fixes the cause suggests that does
    /// (`None` when none does, or the cause suggests none).
    pub cure: Option<Change>,
    /// Runs made to find it.
    pub runs: u32,
}

/// Why a scene could not be shrunk.
#[derive(Debug, thiserror::Error)]
pub enum ShrinkError {
    /// The scene does not build, or a run failed.
    #[error(transparent)]
    Diagnose(#[from] DiagnoseError),
    /// The body asked for is not in the scene.
    #[error("there is no body {body}: {}, its generators expanded", crate::scene::bodies_text(*bodies))]
    NoBody {
        /// The body asked for.
        body: u32,
        /// The scene's bodies, generators expanded.
        bodies: usize,
    },
    /// The whole scene does not show the event within the steps.
    #[error("the scene shows no {symptom} event{} within {steps} steps: nothing to shrink", body.map(|b| format!(" for body {b}")).unwrap_or_default())]
    NoEvent {
        /// The symptom asked for.
        symptom: &'static str,
        /// The body asked for.
        body: Option<u32>,
        /// The steps run.
        steps: u64,
    },
}

/// `scene` with only the bodies `all[keep]` (`all`: its bodies, generators expanded) and the
/// joints `joints` (the scene's, resolved against `all`) whose bodies are all kept, renumbered
/// to the kept bodies and written out in full, so no joint names a removed body.
fn subset(scene: &Scene, all: &[BodyDesc], joints: &[Joint], keep: &[usize]) -> Scene {
    let mut case = scene.clone();
    case.generators.clear();
    case.bodies = keep.iter().map(|&i| all[i].clone()).collect();
    let new_index = |side: Option<u32>| match side {
        None => Some(None),
        Some(i) => keep.binary_search(&(i as usize)).ok().map(|k| Some(k as u32)),
    };
    case.joints = joints
        .iter()
        .filter_map(|j| {
            let (a, b) = (new_index(j.a)?, new_index(j.b)?);
            Some(JointDesc::from_joint(&Joint { a, b, ..j.clone() }))
        })
        .collect();
    case
}

/// The scene's joints (its generators' and its own) with their bodies as indices into its
/// bodies with generators expanded.
fn resolved_joints(scene: &Scene) -> Result<Vec<Joint>, DiagnoseError> {
    if scene.joints.is_empty() && !scene.generators.iter().any(crate::scene::Generator::makes_joints) {
        return Ok(Vec::new());
    }
    // The scene builds (else the first run fails with its error), so its joints resolve; the
    // world's are the same list.
    Ok(scene.build()?.joints().to_vec())
}

/// The first event [`first_event`] found: its step, its body (an index into the case), and its
/// cause with the fixes that cause suggests.
struct Found {
    step: u64,
    body: Option<u32>,
    cause: CauseKind,
    fixes: Vec<Change>,
}

/// The first `symptom` event in `case`, if any within `steps` steps (for `body`, one that
/// happens to that body, an index into `all`, where `keep` maps the case's bodies), with its
/// cause measured as [`super::diagnose`] measures it: on the world as the event left it.
fn first_event(
    case: &Scene,
    keep: &[usize],
    symptom: Symptom,
    body: Option<u32>,
    steps: u64,
) -> Result<Option<Found>, DiagnoseError> {
    let mut world = case.build()?;
    let wanted = |e: &super::Event| {
        e.symptom == symptom
            && body.is_none_or(|b| e.bodies.first().is_some_and(|&k| keep.get(k as usize) == Some(&(b as usize))))
    };
    let mut first: Vec<FirstContact> = Vec::new();
    let mut energy = [EventDetector::mechanical_energy(&world); 2];
    let found = |e: &super::Event, world: &crate::world::World, before: &Before| {
        let (cause, _, fixes) = cause_of(e, world, before);
        Found { step: e.step, body: e.bodies.first().copied(), cause, fixes }
    };
    if let Some(e) = far_bodies(&world).iter().find(|e| wanted(e)) {
        return Ok(Some(found(e, &world, &Before { first: &first, energy, speeds: &[] })));
    }
    let mut watch = Watch::new(&world);
    // Each body's speeds as the step began, for an event's cause (one buffer).
    let mut speeds = Vec::new();
    for _ in 0..steps {
        let before_step = EventDetector::mechanical_energy(&world);
        energy = [energy[1], before_step];
        body_speeds(&world, &mut speeds);
        world.step();
        if world.step_count() == 1 {
            first = FirstContact::of(&world);
        }
        if let Some(e) = watch.observe(&world).iter().find(|e| wanted(e)) {
            return Ok(Some(found(e, &world, &Before { first: &first, energy, speeds: &speeds })));
        }
    }
    Ok(None)
}

/// `case` with `change` (a setting) applied to its settings from the start; `None` for a change
/// that is not a setting or that the case's settings refuse.
fn with_setting(case: &Scene, change: &Change) -> Option<Scene> {
    let Change::Set { field, value } = change else { return None };
    let mut cured = case.clone();
    cured.settings.set_field(field, value).ok()?;
    Some(cured)
}

/// Removes bodies from `scene` while its run still shows a `symptom` event (to `body`, an index
/// into the expanded scene, if given) within `steps` steps: Zeller's ddmin over the bodies,
/// removing ever smaller chunks, then one body at a time until no single removal keeps the
/// event.
///
/// A smaller case counts only if its event has the original's cause, and if the setting that
/// removes the event from the original (its cure, found first) removes it from the smaller case
/// too: else the case would show another fault under the same name (two cubes jittering in free
/// fall, cut from a stack that jitters for want of warm starting, which warm starting does not
/// cure).
pub fn shrink(scene: &Scene, symptom: Symptom, body: Option<u32>, steps: u64) -> Result<Shrunk, ShrinkError> {
    let all = scene.expanded_bodies();
    if let Some(b) = body.filter(|&b| b as usize >= all.len()) {
        return Err(ShrinkError::NoBody { body: b, bodies: all.len() });
    }
    let joints = resolved_joints(scene)?;
    let mut runs = 0u32;
    let mut keep: Vec<usize> = (0..all.len()).collect();
    runs += 1;
    let Some(original) = first_event(scene, &keep, symptom, body, steps)? else {
        return Err(ShrinkError::NoEvent { symptom: symptom.label(), body, steps });
    };
    // The cure: the first setting the cause suggests that removes the event from the start.
    let mut cure = None;
    for change in &original.fixes {
        let Some(cured) = with_setting(scene, change) else { continue };
        runs += 1;
        if first_event(&cured, &keep, symptom, body, steps)?.is_none() {
            cure = Some(change.clone());
            break;
        }
    }
    let mut test = |keep: &[usize]| -> Result<Option<Found>, DiagnoseError> {
        let case = subset(scene, &all, &joints, keep);
        runs += 1;
        let Some(f) = first_event(&case, keep, symptom, body, steps)?.filter(|f| f.cause == original.cause) else {
            return Ok(None);
        };
        if let Some(cured) = cure.as_ref().and_then(|c| with_setting(&case, c)) {
            runs += 1;
            if first_event(&cured, keep, symptom, body, steps)?.is_some() {
                return Ok(None);
            }
        }
        Ok(Some(f))
    };
    let mut found = (original.step, original.body);
    let mut n = 2usize;
    while keep.len() >= 2 {
        let chunk = keep.len().div_ceil(n);
        let mut reduced = false;
        for start in (0..keep.len()).step_by(chunk) {
            let rest: Vec<usize> =
                keep[..start].iter().chain(&keep[(start + chunk).min(keep.len())..]).copied().collect();
            if rest.is_empty() {
                continue;
            }
            if let Some(f) = test(&rest)? {
                keep = rest;
                found = (f.step, f.body);
                n = (n - 1).max(2);
                reduced = true;
                break;
            }
        }
        if !reduced {
            if n >= keep.len() {
                break;
            }
            n = (n * 2).min(keep.len());
        }
    }
    let mut case = subset(scene, &all, &joints, &keep);
    case.name = format!("{} (minimal: {})", scene.name, symptom.label());
    case.description = shrunk_description(scene, &keep, all.len(), symptom, found.0, original.cause, cure.as_ref());
    Ok(Shrunk {
        scene: case,
        kept: keep.iter().map(|&i| i as u32).collect(),
        step: found.0,
        body: found.1,
        cause: original.cause,
        cure,
        runs,
    })
}

/// What a shrunk case is, for its description: the original's text no longer fits it (it
/// counts bodies that are gone).
fn shrunk_description(
    scene: &Scene,
    keep: &[usize],
    of: usize,
    symptom: Symptom,
    step: u64,
    cause: CauseKind,
    cure: Option<&Change>,
) -> String {
    let named = if scene.name.is_empty() { "a scene".to_string() } else { format!("\"{}\"", scene.name) };
    let listed: Vec<String> = keep.iter().map(|k| k.to_string()).collect();
    let cure = cure.map_or(String::new(), |c| format!("; {} removes it", c.describe()));
    let mut text = format!(
        "The smallest part of {named} that `collidoscope shrink` found still showing {} (at step {step}; cause: \
         {}{cure}): {} of its {of} bodies, its bodies {} with generators expanded.",
        symptom.label(),
        cause.label(),
        keep.len(),
        listed.join(", ")
    );
    if !scene.description.is_empty() {
        text.push_str(" Description of the original: ");
        text.push_str(&scene.description);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crowd_with_one_tunneling_plate_shrinks_to_the_plate_and_the_wall() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/bugs/crowd_tunneling.ron")).unwrap();
        assert_eq!(scene.expanded_bodies().len(), 190);
        let s = shrink(&scene, Symptom::Tunneling, None, 60).unwrap();
        assert!(s.scene.bodies.len() <= 3, "kept {:?}", s.kept);
        let names: Vec<_> = s.scene.bodies.iter().filter_map(|b| b.name.clone()).collect();
        assert!(names.contains(&"plate".to_string()) && names.contains(&"wall".to_string()), "{names:?}");
        // The smaller scene still tunnels, at the step reported.
        let mut w = s.scene.build().unwrap();
        let mut watch = Watch::new(&w);
        let mut at = None;
        for _ in 0..60 {
            w.step();
            if watch.observe(&w).iter().any(|e| e.symptom == Symptom::Tunneling) {
                at = Some(w.step_count());
                break;
            }
        }
        assert_eq!(at, Some(s.step));
        // Asking for a body that never tunnels is an error, not an empty scene.
        assert!(matches!(shrink(&scene, Symptom::Tunneling, Some(0), 60), Err(ShrinkError::NoEvent { .. })));
    }

    /// A stack that jitters for want of warm starting shrinks to a stack on its floor, which
    /// warm starting still cures, not to two boxes jittering in free fall; the case says what
    /// it is instead of repeating the original's description.
    #[test]
    fn a_jittering_stack_shrinks_to_a_stack_that_warm_starting_cures() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/bugs/stack_no_warm_start.ron")).unwrap();
        let s = shrink(&scene, Symptom::Jitter, None, 300).unwrap();
        assert_eq!(s.cause, CauseKind::WarmStartingOff);
        assert_eq!(s.cure, Some(Change::Set { field: "warm_starting".into(), value: "true".into() }));
        assert!(s.kept.contains(&0) && s.kept.len() >= 3, "the floor and a stack on it: {:?}", s.kept);
        assert!(s.scene.description.starts_with("The smallest part of \"Bug: stack without warm starting\""));
        assert!(s.scene.description.contains(&format!("{} of its 10 bodies", s.kept.len())), "{}", s.scene.description);
        // Cured in the case as in the original.
        let mut cured = s.scene.clone();
        cured.settings.set_field("warm_starting", "true").unwrap();
        assert!(
            first_event(&cured, &s.kept.iter().map(|&k| k as usize).collect::<Vec<_>>(), Symptom::Jitter, None, 300)
                .unwrap()
                .is_none()
        );
        // A body the scene does not have is refused as such.
        let e = shrink(&scene, Symptom::Jitter, Some(10), 300).unwrap_err();
        assert!(e.to_string().contains("there is no body 10") && e.to_string().contains("0 to 9"), "{e}");
    }

    /// Joints to bodies a shrink removed are dropped; the others follow their bodies' new
    /// indices (a joint named by index would otherwise point at another body, or none).
    #[test]
    fn a_subset_keeps_only_the_joints_of_kept_bodies_renumbered() {
        let scene = Scene::parse(
            r#"(
                bodies: [
                    (name: "floor", kind: Static, shape: Cuboid(half_extents: (5, 0.5, 5)), position: (0, -0.5, 0)),
                    (name: "p", shape: Sphere(radius: 0.1), position: (0, 3, 0)),
                    (name: "q", shape: Sphere(radius: 0.1), position: (1, 3, 0)),
                    (name: "r", shape: Sphere(radius: 0.1), position: (2, 3, 0)),
                ],
                joints: [
                    (name: "hang", kind: Rope(), b: "p", anchor_a: (0, 4, 0)),
                    (name: "pq", kind: Ball(), a: 1, b: 2),
                    (name: "qr", kind: Rod(), a: "q", b: 3, anchor_b: (0, 0, 0)),
                    (name: "rp", kind: Ball(cone: 30), a: 3, b: 1),
                ],
                generators: [Chain(links: 2, origin: (5, 3, 0), end_radius: 0.05)],
            )"#,
            "joints.ron",
        )
        .unwrap();
        let all = scene.expanded_bodies();
        let joints = resolved_joints(&scene).unwrap();
        assert_eq!((all.len(), joints.len()), (4 + 3, 3 + 4), "the chain's three links and three joints");
        // Keep the floor, p, r and the chain's last two links: q's joints and the chain's
        // first go.
        let case = subset(&scene, &all, &joints, &[0, 1, 3, 5, 6]);
        let w = case.build().expect("every kept joint names a kept body");
        let names: Vec<_> = w.joints().iter().map(|j| j.name.clone()).collect();
        assert_eq!(names, [None, Some("hang".into()), Some("rp".into())], "{names:?}");
        let ends = |k: usize| (w.joints()[k].a, w.joints()[k].b);
        assert_eq!(ends(0), (Some(3), Some(4)), "the chain's last joint, between its last two links");
        assert_eq!(ends(1), (None, Some(1)));
        assert_eq!(ends(2), (Some(2), Some(1)), "r is body 2 of the subset");
        // Anchors, axes and limits come through: the kept joints start satisfied.
        for k in 0..w.joints().len() {
            let r = w.joint_report(k);
            assert!(r.linear_error < 1e-5 && r.angular_error < 1e-4, "joint {k}: {r:?}");
        }
        let full = scene.build().unwrap();
        assert_eq!(w.joints()[2].kind, full.joints()[6].kind);
    }
}
