use crate::dynamics::Body;

/// The 64-bit FNV-1a hash: fed bytes in order, it gives the same value on any machine.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    /// Feeds `bytes`.
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= byte as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The hash of the bytes fed so far.
    pub(crate) fn finish(self) -> u64 {
        self.0
    }
}

/// FNV-1a over the bits of every body's pose and velocity, in body order. Equal states give
/// equal hashes on any machine; one changed bit changes it.
pub fn state_hash(bodies: &[Body]) -> u64 {
    let mut h = Fnv1a::default();
    for b in bodies {
        let (p, q) = (b.pose.translation, b.pose.rotation);
        for x in
            [p.x, p.y, p.z, q.x, q.y, q.z, q.w, b.linvel.x, b.linvel.y, b.linvel.z, b.angvel.x, b.angvel.y, b.angvel.z]
        {
            h.write(&x.to_bits().to_le_bytes());
        }
    }
    h.finish()
}
