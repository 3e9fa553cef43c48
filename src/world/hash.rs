use crate::dynamics::Body;

/// FNV-1a over the bits of every body's pose and velocity, in body order. Equal states give
/// equal hashes on any machine; one changed bit changes it.
pub fn state_hash(bodies: &[Body]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |x: f32| {
        for byte in x.to_bits().to_le_bytes() {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for b in bodies {
        let p = &b.pose;
        for x in [p.translation.x, p.translation.y, p.translation.z] {
            feed(x);
        }
        for x in [p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w] {
            feed(x);
        }
        for x in [b.linvel.x, b.linvel.y, b.linvel.z, b.angvel.x, b.angvel.y, b.angvel.z] {
            feed(x);
        }
    }
    h
}
