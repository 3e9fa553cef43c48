//! The compact binary recording format, written as the run goes (a chunk per keyframe, per
//! action and per block of step hashes) and read back into a [`Recording`].
//!
//! Layout: the 8-byte magic [`MAGIC`], the container version as a little-endian `u32`
//! ([`BINARY_VERSION`]), then chunks. A chunk is a tag byte, the payload's length before and
//! after compression (little-endian `u32` each), the CRC-32 of those 9 bytes and the stored
//! payload, then the payload, deflate-compressed. Payloads:
//! - `H` (first): the recording version, the keyframe interval and the scene as RON text;
//! - `K`: a keyframe ([`crate::world::Snapshot`]): its step and settings, then each body, warm
//!   entry and pair entry in the [`codec`](super::codec) format, XOR-ed with the same body's
//!   (or the same pair's) bytes in the previous keyframe when their lengths match. What did not
//!   move between keyframes turns to zeros, which the compressor all but removes; what moved
//!   little keeps only its low bytes;
//! - `D`: instead of a keyframe, its step and a 64-bit digest of its encoded state: the reader
//!   rebuilds the keyframe by re-running the recording (checking every step's hash on the way)
//!   and checks it against the digest. This is the default ([`KeyframeStorage::Digest`]): the
//!   keyframes' contact caches are most of a recording's bytes and a replay makes them anew;
//! - `A`: a [`TimedAction`] as RON text;
//! - `S`: a block of step hashes: the first step's index, a count and the `u64`s;
//! - `E` (last): the step count, the keyframe count and the action count, checked on read, so a
//!   file cut short is told apart from a shorter run.
//!
//! Chunks follow step order, so a reader rebuilds the recording as the writer saw it.

use super::codec;
use super::{RECORDING_VERSION, Recording, TimedAction};
use crate::dynamics::joints::JointState;
use crate::scene::{Scene, SceneError};
use crate::world::{BodySnapshot, Fnv1a, PairSnapshot, Snapshot, WarmEntry, World};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

// The first bytes of a binary recording, kept with the text loader, which names such a file
// given where text was wanted.
use crate::scene::RECORDING_MAGIC as MAGIC;
/// The container version this build reads and writes.
const BINARY_VERSION: u32 = 2;
/// The file extension that asks for the binary format.
pub const EXTENSION: &str = "cdrec";
/// Step hashes per `S` chunk.
const HASH_BLOCK: usize = 512;
/// The largest payload a chunk may claim (keyframes of a million bodies fit).
const MAX_PAYLOAD: u32 = 1 << 30;
/// Deflate level: 6 is zlib's default, the knee of size against time for keyframes.
const LEVEL: u8 = 6;

const TAG_DIGEST: u8 = b'D';
const TAG_HEADER: u8 = b'H';
const TAG_KEYFRAME: u8 = b'K';
const TAG_ACTION: u8 = b'A';
const TAG_HASHES: u8 = b'S';
const TAG_END: u8 = b'E';

/// How a binary recording holds its keyframes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyframeStorage {
    /// A digest per keyframe; reading the file re-runs it to rebuild them (as long as a replay
    /// takes). The file holds little more than the scene and 8 bytes per step.
    #[default]
    Digest,
    /// Each keyframe in full, XOR-ed against the one before: opens without a re-run; about a
    /// fifth to an eighth of the RON file's size.
    Full,
}

/// A 64-bit digest (FNV-1a) of a keyframe's encoded state.
fn digest(snapshot: &Snapshot) -> Result<u64, codec::CodecError> {
    let mut h = Fnv1a::default();
    h.write(&codec::to_bytes(snapshot)?);
    Ok(h.finish())
}

/// Whether `bytes` start as a binary recording does.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Writes a binary recording chunk by chunk to `out`, as the run goes: only the hashes of the
/// steps since the last chunk are held in memory.
struct BinaryWriter<W: Write> {
    out: W,
    storage: KeyframeStorage,
    deltas: KeyframeDeltas,
    hashes: Vec<u64>,
    /// The step the first held hash belongs to (the hash after step `first + 1`).
    first: u64,
    steps: u64,
    keyframes: u64,
    actions: u64,
}

impl<W: Write> BinaryWriter<W> {
    /// Starts a recording of `scene` (with the settings the run starts with) in `out`.
    fn new(mut out: W, scene: &Scene, keyframe_interval: u32, storage: KeyframeStorage) -> std::io::Result<Self> {
        out.write_all(&MAGIC)?;
        out.write_all(&BINARY_VERSION.to_le_bytes())?;
        let text = ron::ser::to_string(scene).map_err(std::io::Error::other)?;
        let mut w = BinaryWriter {
            out,
            storage,
            deltas: KeyframeDeltas::default(),
            hashes: Vec::new(),
            first: 0,
            steps: 0,
            keyframes: 0,
            actions: 0,
        };
        w.chunk(TAG_HEADER, &codec::to_bytes(&(RECORDING_VERSION, keyframe_interval, text)).map_err(io)?)?;
        Ok(w)
    }

    fn chunk(&mut self, tag: u8, payload: &[u8]) -> std::io::Result<()> {
        let packed = miniz_oxide::deflate::compress_to_vec(payload, LEVEL);
        let raw_len = u32::try_from(payload.len()).ok().filter(|&n| n <= MAX_PAYLOAD);
        let raw_len = raw_len.ok_or_else(|| std::io::Error::other("a chunk larger than 1 GiB"))?;
        let mut head = [0u8; 13];
        head[0] = tag;
        head[1..5].copy_from_slice(&raw_len.to_le_bytes());
        head[5..9].copy_from_slice(&(packed.len() as u32).to_le_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&head[..9]);
        crc.update(&packed);
        head[9..13].copy_from_slice(&crc.finalize().to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(&packed)
    }

    fn flush_hashes(&mut self) -> std::io::Result<()> {
        if self.hashes.is_empty() {
            return Ok(());
        }
        let mut p = Vec::with_capacity(16 + 8 * self.hashes.len());
        put_varint(&mut p, self.first);
        put_varint(&mut p, self.hashes.len() as u64);
        for h in &self.hashes {
            p.extend_from_slice(&h.to_le_bytes());
        }
        self.first += self.hashes.len() as u64;
        self.hashes.clear();
        self.chunk(TAG_HASHES, &p)
    }

    /// Records a keyframe (taken after the hashes already given).
    fn keyframe(&mut self, snapshot: &Snapshot) -> std::io::Result<()> {
        self.flush_hashes()?;
        self.keyframes += 1;
        match self.storage {
            KeyframeStorage::Full => {
                let payload = self.deltas.encode(snapshot).map_err(io)?;
                self.chunk(TAG_KEYFRAME, &payload)
            }
            KeyframeStorage::Digest => {
                let mut p = Vec::new();
                put_varint(&mut p, snapshot.step);
                p.extend_from_slice(&digest(snapshot).map_err(io)?.to_le_bytes());
                self.chunk(TAG_DIGEST, &p)
            }
        }
    }

    /// Records an action (applied after the hashes already given).
    fn action(&mut self, action: &TimedAction) -> std::io::Result<()> {
        self.flush_hashes()?;
        self.actions += 1;
        let text = ron::ser::to_string(action).map_err(std::io::Error::other)?;
        self.chunk(TAG_ACTION, text.as_bytes())
    }

    /// Records the hash of the next step.
    fn hash(&mut self, hash: u64) -> std::io::Result<()> {
        self.hashes.push(hash);
        self.steps += 1;
        if self.hashes.len() >= HASH_BLOCK { self.flush_hashes() } else { Ok(()) }
    }

    /// Writes the end chunk and hands back the output.
    fn finish(mut self) -> std::io::Result<W> {
        self.flush_hashes()?;
        let mut p = Vec::new();
        for n in [self.steps, self.keyframes, self.actions] {
            put_varint(&mut p, n);
        }
        self.chunk(TAG_END, &p)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

fn io(e: codec::CodecError) -> std::io::Error {
    std::io::Error::other(e.0)
}

/// A recorder that streams to a [`BinaryWriter`] and keeps nothing but the world: for the
/// command line's `record`, whose runs may be longer than memory holds keyframes for.
pub struct StreamRecorder<W: Write> {
    writer: BinaryWriter<W>,
    interval: u32,
}

impl<W: Write> StreamRecorder<W> {
    /// Starts recording `world`, which must have just been built from `scene`.
    pub fn new(
        out: W,
        scene: &Scene,
        world: &World,
        keyframe_interval: u32,
        storage: KeyframeStorage,
    ) -> std::io::Result<Self> {
        let mut scene = scene.clone();
        scene.settings = world.settings.clone();
        let interval = keyframe_interval.max(1);
        let mut writer = BinaryWriter::new(out, &scene, interval, storage)?;
        writer.keyframe(&world.snapshot())?;
        Ok(StreamRecorder { writer, interval })
    }

    /// Steps the world and records the result.
    pub fn step(&mut self, world: &mut World) -> std::io::Result<()> {
        world.step();
        self.writer.hash(world.hash())?;
        if world.step_count().is_multiple_of(self.interval as u64) {
            self.writer.keyframe(&world.snapshot())?;
        }
        Ok(())
    }

    /// Ends the recording and hands back the output.
    pub fn finish(self) -> std::io::Result<W> {
        self.writer.finish()
    }
}

impl Recording {
    /// The recording in the binary format.
    pub(crate) fn to_binary(&self, storage: KeyframeStorage) -> Vec<u8> {
        let write = || -> std::io::Result<Vec<u8>> {
            let mut w = BinaryWriter::new(Vec::new(), &self.scene, self.keyframe_interval, storage)?;
            let mut actions = self.actions.iter().peekable();
            let mut keyframes = self.keyframes.iter().peekable();
            for step in 0..=self.steps() {
                // At each step: its keyframe, then the actions applied before the next step
                // (the order a recorder sees them), then that step's hash.
                while let Some(k) = keyframes.next_if(|k| k.step <= step) {
                    w.keyframe(k)?;
                }
                while let Some(a) = actions.next_if(|a| a.step <= step) {
                    w.action(a)?;
                }
                if let Some(&h) = self.hashes.get(step as usize) {
                    w.hash(h)?;
                }
            }
            for k in keyframes {
                w.keyframe(k)?;
            }
            for a in actions {
                w.action(a)?;
            }
            w.finish()
        };
        write().expect("a recording always encodes into memory")
    }

    /// Reads a binary recording; `path` is for messages, which say at which byte and in which
    /// chunk the damage is. A recording that holds keyframe digests is re-run to rebuild its
    /// keyframes, and one that does not replay is refused, naming the step.
    pub fn from_binary(bytes: &[u8], path: &Path) -> Result<Recording, SceneError> {
        Recording::from_binary_verified(bytes, path).map(|(rec, _)| rec)
    }

    /// [`Recording::from_binary`], and the steps verified on the way if its keyframes were
    /// rebuilt by a re-run (so a replay need not run it again).
    pub(crate) fn from_binary_verified(bytes: &[u8], path: &Path) -> Result<(Recording, Option<u64>), SceneError> {
        Recording::read_binary(bytes, path, true)
    }

    /// Reads a binary recording's scene, actions, hashes and stored keyframes without re-running
    /// it: a recording that holds keyframe digests comes back without keyframes, its replay not
    /// checked. For a caller that needs only the scene and the actions (and re-runs them itself).
    pub fn from_binary_unreplayed(bytes: &[u8], path: &Path) -> Result<Recording, SceneError> {
        Recording::read_binary(bytes, path, false).map(|(rec, _)| rec)
    }

    /// The body of [`Recording::from_binary_verified`]; `rebuild` says whether keyframe digests
    /// are turned back into keyframes by a re-run.
    fn read_binary(bytes: &[u8], path: &Path, rebuild: bool) -> Result<(Recording, Option<u64>), SceneError> {
        let bad = |at: usize, message: String| SceneError::Invalid {
            path: path.into(),
            field: format!("byte {at}"),
            message: message.into(),
        };
        if !is_binary(bytes) {
            return Err(bad(0, "not a binary recording (its first bytes are not the format's magic)".into()));
        }
        let version = bytes.get(8..12).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
        match version {
            None => return Err(bad(8, "the file ends inside its header".into())),
            Some(BINARY_VERSION) => {}
            Some(v) => {
                return Err(bad(8, format!("binary recording version {v}: this build reads version {BINARY_VERSION}")));
            }
        }
        let mut pos = 12;
        let mut rec: Option<Recording> = None;
        let mut end: Option<[u64; 3]> = None;
        let mut deltas = KeyframeDeltas::default();
        let mut digests: Vec<(u64, u64)> = Vec::new();
        let mut index = 0usize;
        while pos < bytes.len() {
            let at = pos;
            let head =
                bytes.get(pos..pos + 13).ok_or_else(|| bad(at, "the file ends inside a chunk's header".into()))?;
            let tag = head[0];
            let raw_len = u32::from_le_bytes(head[1..5].try_into().expect("4 bytes"));
            let packed_len = u32::from_le_bytes(head[5..9].try_into().expect("4 bytes")) as usize;
            let crc = u32::from_le_bytes(head[9..13].try_into().expect("4 bytes"));
            let packed = bytes
                .get(pos + 13..(pos + 13).saturating_add(packed_len))
                .ok_or_else(|| bad(at, format!("the file ends inside chunk {index}: it is cut short")))?;
            let mut hasher = crc32fast::Hasher::new();
            hasher.update(&head[..9]);
            hasher.update(packed);
            if hasher.finalize() != crc {
                return Err(bad(at, format!("chunk {index} fails its checksum: the file is damaged")));
            }
            if raw_len > MAX_PAYLOAD {
                return Err(bad(at, format!("chunk {index} claims {raw_len} bytes, more than the 1 GiB limit")));
            }
            let payload = miniz_oxide::inflate::decompress_to_vec_with_limit(packed, raw_len as usize)
                .ok()
                .filter(|p| p.len() == raw_len as usize)
                .ok_or_else(|| bad(at, format!("chunk {index} does not decompress to its stated size")))?;
            pos += 13 + packed_len;
            let what = |e: codec::CodecError| bad(at, format!("chunk {index}: {e}"));
            if end.is_some() {
                return Err(bad(at, format!("chunk {index} follows the end chunk")));
            }
            match (tag, rec.as_mut()) {
                (TAG_HEADER, None) => {
                    let (version, keyframe_interval, text): (u32, u32, String) =
                        codec::from_bytes(&payload).map_err(what)?;
                    if version != RECORDING_VERSION {
                        return Err(bad(
                            at,
                            format!("unsupported recording version {version} (this build reads {RECORDING_VERSION})"),
                        ));
                    }
                    let scene: Scene = ron::from_str(&text).map_err(|e| bad(at, format!("the scene: {e}")))?;
                    rec = Some(Recording {
                        version,
                        scene,
                        keyframe_interval,
                        actions: Vec::new(),
                        keyframes: Vec::new(),
                        hashes: Vec::new(),
                    });
                }
                (_, None) => return Err(bad(at, "the first chunk is not the header".into())),
                (TAG_HEADER, Some(_)) => return Err(bad(at, format!("chunk {index} is a second header"))),
                (TAG_KEYFRAME, Some(r)) => r.keyframes.push(deltas.decode(&payload).map_err(what)?),
                (TAG_DIGEST, Some(_)) => {
                    let mut d = payload.as_slice();
                    let step = read_varint(&mut d)
                        .filter(|_| d.len() == 8)
                        .ok_or_else(|| bad(at, format!("chunk {index}: a bad keyframe digest")))?;
                    digests.push((step, u64::from_le_bytes(d.try_into().expect("8 bytes"))));
                }
                (TAG_ACTION, Some(r)) => {
                    let text =
                        std::str::from_utf8(&payload).map_err(|_| bad(at, format!("chunk {index}: not UTF-8")))?;
                    r.actions.push(ron::from_str(text).map_err(|e| bad(at, format!("chunk {index}: {e}")))?);
                }
                (TAG_HASHES, Some(r)) => {
                    let (first, n) =
                        hash_block_head(&payload).ok_or_else(|| what(codec::CodecError("a bad count".into())))?;
                    let body = &payload[payload.len() - 8 * n..];
                    if first != r.hashes.len() as u64 {
                        return Err(bad(
                            at,
                            format!("chunk {index} holds hashes from step {first}, expected {}", r.hashes.len()),
                        ));
                    }
                    r.hashes.extend(body.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))));
                }
                (TAG_END, Some(_)) => {
                    let mut d = payload.as_slice();
                    let mut counts = [0u64; 3];
                    for c in &mut counts {
                        *c = read_varint(&mut d).ok_or_else(|| bad(at, "a bad end chunk".into()))?;
                    }
                    end = Some(counts);
                }
                (t, Some(_)) => return Err(bad(at, format!("chunk {index} has an unknown tag 0x{t:02x}"))),
            }
            index += 1;
        }
        let mut rec = rec.ok_or_else(|| bad(pos, "the file holds no header chunk".into()))?;
        let Some([steps, keyframes, actions]) = end else {
            return Err(bad(
                pos,
                format!("the file ends after step {} without its end chunk: it is cut short", rec.steps()),
            ));
        };
        let have = [rec.steps(), (rec.keyframes.len() + digests.len()) as u64, rec.actions.len() as u64];
        if have != [steps, keyframes, actions] {
            return Err(bad(
                pos,
                format!(
                    "the end chunk counts {steps} steps, {keyframes} keyframes and {actions} actions; the file holds {}, {} and {}",
                    have[0], have[1], have[2]
                ),
            ));
        }
        rec.check(path)?;
        if digests.is_empty() {
            return Ok((rec, None));
        }
        if !rec.keyframes.is_empty() {
            return Err(bad(pos, "the file holds both keyframes and keyframe digests".into()));
        }
        if !digests.is_sorted_by_key(|d| d.0) || digests.last().is_some_and(|d| d.0 > rec.steps()) {
            return Err(bad(pos, "the keyframe digests are out of step order or past the last step".into()));
        }
        if !rebuild {
            return Ok((rec, None));
        }
        let mut pending = digests.iter().peekable();
        let mut keyframes = Vec::new();
        let verified = rec.rerun(|world, step| {
            if pending.next_if(|d| d.0 == step).is_some_and(|&(_, d)| {
                let snap = world.snapshot();
                let same = digest(&snap).is_ok_and(|got| got == d);
                keyframes.push(snap);
                !same
            }) {
                return Err(super::Divergence::Keyframe {
                    step,
                    what: "the re-run state differs from the recorded keyframe's digest".into(),
                });
            }
            Ok(())
        });
        let verified = verified.map_err(|d| SceneError::Invalid {
            path: path.into(),
            field: "keyframes".into(),
            message: format!("the recording does not replay, so its keyframes cannot be rebuilt: {d}").into(),
        })?;
        if pending.next().is_some() {
            return Err(bad(pos, "two keyframe digests for one step".into()));
        }
        rec.keyframes = keyframes;
        Ok((rec, Some(verified)))
    }

    /// Reads a recording in either format and re-runs it, checking every step's hash and every
    /// keyframe: the steps verified, or what failed, in words naming the file.
    pub fn load_verified(path: &Path) -> Result<u64, super::VerifyError> {
        let bytes = crate::scene::read_file(path)?;
        let (rec, verified) = Recording::from_bytes(&bytes, path)?;
        match verified {
            Some(n) => Ok(n),
            None => rec.verify().map_err(|divergence| super::VerifyError::Diverged { path: path.into(), divergence }),
        }
    }
}

/// The encoded bodies, warm entries and pair entries of the last keyframe, which the next one
/// is XOR-ed against.
#[derive(Default)]
struct KeyframeDeltas {
    bodies: Vec<Vec<u8>>,
    warm: HashMap<(u32, u32), Vec<u8>>,
    pairs: HashMap<(u32, u32), Vec<u8>>,
}

/// Appends `bytes`, XOR-ed with `reference` if it has their length (flag 1), else as they are
/// (flag 0 and the length).
fn put_delta(out: &mut Vec<u8>, bytes: &[u8], reference: Option<&Vec<u8>>) {
    match reference {
        Some(r) if r.len() == bytes.len() => {
            out.push(1);
            out.extend(bytes.iter().zip(r).map(|(a, b)| a ^ b));
        }
        _ => {
            out.push(0);
            put_varint(out, bytes.len() as u64);
            out.extend_from_slice(bytes);
        }
    }
}

/// Reads what [`put_delta`] wrote.
fn take_delta(d: &mut &[u8], reference: Option<&Vec<u8>>) -> Result<Vec<u8>, codec::CodecError> {
    let short = || codec::CodecError("a keyframe entry is cut short".into());
    let (&flag, rest) = d.split_first().ok_or_else(short)?;
    *d = rest;
    let (n, xor) = match (flag, reference) {
        (1, Some(r)) => (r.len(), Some(r)),
        (1, None) => return Err(codec::CodecError("a keyframe entry refers to a previous keyframe it lacks".into())),
        (0, _) => (read_varint(d).ok_or_else(short)? as usize, None),
        (f, _) => return Err(codec::CodecError(format!("a keyframe entry flag of {f}"))),
    };
    if d.len() < n {
        return Err(short());
    }
    let (bytes, rest) = d.split_at(n);
    *d = rest;
    Ok(match xor {
        Some(r) => bytes.iter().zip(r).map(|(a, b)| a ^ b).collect(),
        None => bytes.to_vec(),
    })
}

impl KeyframeDeltas {
    fn encode(&mut self, s: &Snapshot) -> Result<Vec<u8>, codec::CodecError> {
        let mut out = Vec::new();
        put_varint(&mut out, s.step);
        let settings = codec::to_bytes(&s.settings)?;
        put_varint(&mut out, settings.len() as u64);
        out.extend_from_slice(&settings);
        let mut next = KeyframeDeltas::default();
        put_varint(&mut out, s.bodies.len() as u64);
        for (i, b) in s.bodies.iter().enumerate() {
            let bytes = codec::to_bytes(b)?;
            put_delta(&mut out, &bytes, self.bodies.get(i));
            next.bodies.push(bytes);
        }
        for (entries, last, keep) in [
            (
                s.warm_cache.iter().map(|e| ((e.a, e.b), codec::to_bytes(e))).collect::<Vec<_>>(),
                &self.warm,
                &mut next.warm,
            ),
            (s.pair_cache.iter().map(|e| ((e.a, e.b), codec::to_bytes(e))).collect(), &self.pairs, &mut next.pairs),
        ] {
            put_varint(&mut out, entries.len() as u64);
            for (key, bytes) in entries {
                let bytes = bytes?;
                put_varint(&mut out, key.0 as u64);
                put_varint(&mut out, key.1 as u64);
                put_delta(&mut out, &bytes, last.get(&key));
                keep.insert(key, bytes);
            }
        }
        // Joint states last, whole (a few per scene), and only in jointed worlds: a keyframe
        // without them reads as it did before joints.
        if !s.joints.is_empty() {
            put_varint(&mut out, s.joints.len() as u64);
            for j in &s.joints {
                let bytes = codec::to_bytes(j)?;
                put_varint(&mut out, bytes.len() as u64);
                out.extend_from_slice(&bytes);
            }
        }
        *self = next;
        Ok(out)
    }

    fn decode(&mut self, payload: &[u8]) -> Result<Snapshot, codec::CodecError> {
        let bad = |what: &str| codec::CodecError(format!("a keyframe's {what} is cut short or damaged"));
        let mut d = payload;
        let step = read_varint(&mut d).ok_or_else(|| bad("step"))?;
        let n = read_varint(&mut d).ok_or_else(|| bad("settings"))? as usize;
        if d.len() < n {
            return Err(bad("settings"));
        }
        let settings = codec::from_bytes(&d[..n])?;
        d = &d[n..];
        let mut next = KeyframeDeltas::default();
        let count = |d: &mut &[u8], what: &str| {
            let n = read_varint(d).ok_or_else(|| bad(what))?;
            // Each entry takes at least a byte: a larger count is damage.
            if n > d.len() as u64 { Err(bad(what)) } else { Ok(n as usize) }
        };
        let mut bodies = Vec::new();
        for i in 0..count(&mut d, "bodies")? {
            let bytes = take_delta(&mut d, self.bodies.get(i))?;
            bodies.push(codec::from_bytes::<BodySnapshot>(&bytes)?);
            next.bodies.push(bytes);
        }
        let entry = |d: &mut &[u8], last: &HashMap<(u32, u32), Vec<u8>>, keep: &mut HashMap<(u32, u32), Vec<u8>>| {
            let mut id = || read_varint(d).and_then(|v| u32::try_from(v).ok()).ok_or_else(|| bad("pair"));
            let key = (id()?, id()?);
            let bytes = take_delta(d, last.get(&key))?;
            keep.insert(key, bytes.clone());
            Ok::<_, codec::CodecError>(bytes)
        };
        let mut warm_cache = Vec::new();
        for _ in 0..count(&mut d, "warm cache")? {
            warm_cache.push(codec::from_bytes::<WarmEntry>(&entry(&mut d, &self.warm, &mut next.warm)?)?);
        }
        let mut pair_cache = Vec::new();
        for _ in 0..count(&mut d, "pair cache")? {
            pair_cache.push(codec::from_bytes::<PairSnapshot>(&entry(&mut d, &self.pairs, &mut next.pairs)?)?);
        }
        let mut joints = Vec::new();
        if !d.is_empty() {
            for _ in 0..count(&mut d, "joints")? {
                let n = read_varint(&mut d).ok_or_else(|| bad("joint"))? as usize;
                if d.len() < n {
                    return Err(bad("joint"));
                }
                joints.push(codec::from_bytes::<JointState>(&d[..n])?);
                d = &d[n..];
            }
        }
        if !d.is_empty() {
            return Err(bad("end"));
        }
        *self = next;
        Ok(Snapshot { step, settings, bodies, warm_cache, pair_cache, joints })
    }
}

/// Appends `v` as an unsigned LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads what [`put_varint`] wrote.
fn read_varint(d: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = d.split_first()?;
        *d = rest;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A hash block's first step and count, if the payload holds exactly that many hashes.
fn hash_block_head(payload: &[u8]) -> Option<(u64, usize)> {
    let mut d = payload;
    let first = read_varint(&mut d)?;
    let n = read_varint(&mut d)?;
    (d.len() as u64 == n.checked_mul(8)?).then_some((first, n as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Recorder;
    use crate::record::tests::recorded;

    #[test]
    fn a_recording_that_does_not_replay_is_refused_at_its_step() {
        let mut rec = recorded(30);
        rec.hashes[17] ^= 1;
        let err = Recording::from_binary(&rec.to_binary(KeyframeStorage::Digest), Path::new("r.cdrec"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("diverged at step 18"), "{err}");
    }

    #[test]
    fn a_recording_round_trips_and_still_verifies() {
        let rec = recorded(45);
        for storage in [KeyframeStorage::Full, KeyframeStorage::Digest] {
            let bytes = rec.to_binary(storage);
            assert!(is_binary(&bytes));
            let back = Recording::from_binary(&bytes, Path::new("r.cdrec")).unwrap();
            assert_eq!(back, rec, "{storage:?}");
            assert_eq!(back.verify(), Ok(45));
        }
    }

    #[test]
    fn read_without_a_replay_a_digest_recording_lacks_only_its_keyframes() {
        let mut rec = recorded(30);
        let full = Recording::from_binary_unreplayed(&rec.to_binary(KeyframeStorage::Full), Path::new("r.cdrec"));
        assert_eq!(full.unwrap(), rec);
        // A recording that does not replay still reads: nothing is re-run.
        rec.hashes[17] ^= 1;
        let back = Recording::from_binary_unreplayed(&rec.to_binary(KeyframeStorage::Digest), Path::new("r.cdrec"));
        rec.keyframes.clear();
        assert_eq!(back.unwrap(), rec);
    }

    #[test]
    fn the_streamed_file_equals_the_whole_recording_written_at_once() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut a = scene.build().unwrap();
        let mut b = scene.build().unwrap();
        let mut whole = Recorder::new(&scene, &a, 7);
        let mut stream = StreamRecorder::new(Vec::new(), &scene, &b, 7, KeyframeStorage::Full).unwrap();
        for _ in 0..1100 {
            whole.step(&mut a);
            stream.step(&mut b).unwrap();
        }
        assert_eq!(stream.finish().unwrap(), whole.finish().to_binary(KeyframeStorage::Full));
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_a_clear_error() {
        for storage in [KeyframeStorage::Full, KeyframeStorage::Digest] {
            damaged_files_are_refused(&recorded(25).to_binary(storage));
        }
    }

    fn damaged_files_are_refused(bytes: &[u8]) {
        let path = Path::new("case.cdrec");
        for cut in 0..bytes.len() {
            let err = Recording::from_binary(&bytes[..cut], path).unwrap_err().to_string();
            assert!(err.starts_with("case.cdrec: byte "), "cut at {cut}: {err}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.to_vec();
            bad[at] ^= 0x10;
            let err = Recording::from_binary(&bad, path).unwrap_err().to_string();
            assert!(err.starts_with("case.cdrec: byte "), "flip at {at}: {err}");
        }
        let mut later = bytes.to_vec();
        later[8] = 9;
        let err = Recording::from_binary(&later, path).unwrap_err().to_string();
        assert!(err.contains("version 9"), "{err}");
        // A file of the first format (its chunks in the hand-written codec) is named as such.
        let mut older = bytes.to_vec();
        older[8..12].copy_from_slice(&1u32.to_le_bytes());
        let err = Recording::from_binary(&older, path).unwrap_err().to_string();
        assert!(err.ends_with("binary recording version 1: this build reads version 2"), "{err}");
    }
}
