//! Islands of touching dynamic bodies fall asleep together once all of them have rested long
//! enough, and wake together.

use crate::dynamics::joints::Joints;
use crate::dynamics::solver::Contact;
use crate::dynamics::{Body, BodyKind};
use crate::math::Vec3;
use crate::parallel::Bodies;
use crate::settings::Settings;
use crate::union_find;

/// The sleep update's working lists, kept from step to step (what they hold between steps does
/// not matter).
#[derive(Debug, Default)]
pub(super) struct SleepLists {
    /// Per body: its parent in the union-find, then its island's root.
    root: Vec<u32>,
    /// Per island root: the shortest time any member has rested, s.
    min_time: Vec<f32>,
}

/// Union-find over contacts and joints between non-static bodies: each body's island root,
/// written to `parent`. With a list of the bodies that can be awake (`which`, see [`update`]),
/// only theirs: a link between bodies asleep is skipped, and no other entry is written.
fn islands(bodies: &[Body], contacts: &[Contact], joints: &Joints, parent: &mut Vec<u32>, which: Bodies<'_>) {
    parent.resize(bodies.len(), 0);
    which.each(|k| parent[k] = k as u32);
    let listed = matches!(which, Bodies::Listed(_));
    for (a, b) in contacts.iter().map(|c| (c.a, c.b)).chain(joints.links()) {
        let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
        if ba.kind == BodyKind::Static || bb.kind == BodyKind::Static || (listed && (ba.asleep || bb.asleep)) {
            continue;
        }
        union_find::join(parent, a, b);
    }
    which.each(|k| parent[k] = union_find::root(parent, k as u32));
}

/// Whether a body can disturb a sleeping neighbour: awake and dynamic, or kinematic and moving.
fn disturbs(b: &Body) -> bool {
    match b.kind {
        BodyKind::Dynamic => !b.asleep,
        BodyKind::Kinematic => b.linvel != Vec3::ZERO || b.angvel != Vec3::ZERO,
        BodyKind::Static => false,
    }
}

/// Wakes every sleeping body that touches a disturbing body or is jointed to one, with the
/// whole island it fell asleep with, and lists the bodies it woke in `woken`, ascending.
/// Returns whether it woke any.
pub(super) fn wake_touched(bodies: &mut [Body], contacts: &[Contact], joints: &Joints, woken: &mut Vec<u32>) -> bool {
    woken.clear();
    // With nobody asleep there is nothing to wake, and the contacts (which would each read two
    // bodies) need not be looked at.
    if !bodies.iter().any(|b| b.asleep) {
        return false;
    }
    // Islands to wake, by the id they fell asleep with (or the body itself when it has none).
    let mut wake: Vec<u32> = Vec::new();
    for (ia, ib) in contacts.iter().map(|c| (c.a, c.b)).chain(joints.links()) {
        let (a, b) = (&bodies[ia as usize], &bodies[ib as usize]);
        for (sleeper, other, i) in [(a, b, ia), (b, a, ib)] {
            if sleeper.asleep && disturbs(other) {
                wake.push(sleeper.sleep_island.unwrap_or(i));
            }
        }
    }
    if wake.is_empty() {
        return false;
    }
    wake.sort_unstable();
    wake.dedup();
    for (i, b) in bodies.iter_mut().enumerate() {
        if b.asleep && wake.binary_search(&b.sleep_island.unwrap_or(i as u32)).is_ok() {
            b.wake();
            woken.push(i as u32);
        }
    }
    true
}

/// Advances sleep timers and puts islands whose every body has rested `sleep_time` to sleep;
/// whether any body fell asleep. `which` is every body, or lists the bodies that can be awake:
/// dynamic ones (no kinematic body), each other body static or asleep, none of them touching
/// or jointed to a listed body awake (it would have been woken).
pub(super) fn update(
    bodies: &mut [Body],
    contacts: &[Contact],
    joints: &Joints,
    settings: &Settings,
    lists: &mut SleepLists,
    which: Bodies<'_>,
) -> bool {
    let dt = settings.dt;
    which.each(|i| {
        let b = &mut bodies[i];
        if b.is_dynamic() && !b.asleep {
            // Spin counts by the speed it gives the body's farthest point, so a large slow roll
            // and a small fast spin are judged alike (Box2D's rule): a capsule rolling at 1 cm/s
            // rests.
            let spin = b.angvel.length() * b.shape.bounding_radius();
            let resting = b.linvel.length() < settings.sleep_speed && spin < settings.sleep_speed;
            b.sleep_time = if resting { b.sleep_time + dt } else { 0.0 };
        }
    });
    let SleepLists { root, min_time } = lists;
    islands(bodies, contacts, joints, root, which);
    // An island may sleep only if every member rests; a moving kinematic member keeps it awake.
    min_time.resize(bodies.len(), f32::INFINITY);
    which.each(|i| min_time[i] = f32::INFINITY);
    which.each(|i| {
        let b = &bodies[i];
        let t = match b.kind {
            BodyKind::Dynamic if !b.asleep => b.sleep_time,
            BodyKind::Kinematic if disturbs(b) => 0.0,
            _ => return,
        };
        let r = root[i] as usize;
        min_time[r] = min_time[r].min(t);
    });
    let mut fell = false;
    which.each(|i| {
        let b = &mut bodies[i];
        // Every member must have rested at least one step: a `sleep_time` of 0 means "as soon as
        // the island rests", never "at once".
        let rested = min_time[root[i] as usize];
        if b.is_dynamic() && !b.asleep && rested > 0.0 && rested >= settings.sleep_time {
            b.asleep = true;
            b.sleep_island = Some(root[i]);
            b.linvel = Vec3::ZERO;
            b.angvel = Vec3::ZERO;
            fell = true;
        }
    });
    fell
}
