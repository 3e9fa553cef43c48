//! The compact binary recording format, written as the run goes (a chunk per keyframe, per
//! action and per block of step hashes) and read back into a [`Recording`].
//!
//! Layout: the 8-byte magic [`MAGIC`], the container version as a little-endian `u32`
//! ([`BINARY_VERSION`]), then chunks. A chunk is a tag byte, the payload's length before and
//! after compression (little-endian `u32` each), the CRC-32 of those 9 bytes and the stored
//! payload, then the payload, deflate-compressed. Payloads:
//! - `H` (first): the recording version, the keyframe interval and the scene as RON text;
//! - `K`: a keyframe ([`crate::world::Snapshot`] in the [`codec`](super::codec) format);
//! - `A`: a [`TimedAction`] as RON text;
//! - `S`: a block of step hashes: the first step's index, a count and the `u64`s;
//! - `E` (last): the step count, the keyframe count and the action count, checked on read, so a
//!   file cut short is told apart from a shorter run.
//!
//! Chunks follow step order, so a reader rebuilds the recording as the writer saw it.

use super::codec::{self, put_varint};
use super::{RECORDING_VERSION, Recording, TimedAction};
use crate::scene::{Scene, SceneError};
use crate::world::{Snapshot, World};
use std::io::Write;
use std::path::Path;

/// The first bytes of a binary recording: a high byte (no text file starts with it), the name,
/// and a newline a text-mode transfer would mangle.
pub const MAGIC: [u8; 8] = *b"\x89CDREC\r\n";
/// The container version this build reads and writes.
pub const BINARY_VERSION: u32 = 1;
/// The file extension that asks for the binary format.
pub const EXTENSION: &str = "cdrec";
/// Step hashes per `S` chunk.
const HASH_BLOCK: usize = 512;
/// The largest payload a chunk may claim (keyframes of a million bodies fit).
const MAX_PAYLOAD: u32 = 1 << 30;
/// Deflate level: 6 is zlib's default, the knee of size against time for keyframes.
const LEVEL: u8 = 6;

const TAG_HEADER: u8 = b'H';
const TAG_KEYFRAME: u8 = b'K';
const TAG_ACTION: u8 = b'A';
const TAG_HASHES: u8 = b'S';
const TAG_END: u8 = b'E';

/// Whether `bytes` start as a binary recording does.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Writes a binary recording chunk by chunk to `out`, as the run goes: only the hashes of the
/// steps since the last chunk are held in memory.
pub struct BinaryWriter<W: Write> {
    out: W,
    hashes: Vec<u64>,
    /// The step the first held hash belongs to (the hash after step `first + 1`).
    first: u64,
    steps: u64,
    keyframes: u64,
    actions: u64,
}

impl<W: Write> BinaryWriter<W> {
    /// Starts a recording of `scene` (with the settings the run starts with) in `out`.
    pub fn new(mut out: W, scene: &Scene, keyframe_interval: u32) -> std::io::Result<Self> {
        out.write_all(&MAGIC)?;
        out.write_all(&BINARY_VERSION.to_le_bytes())?;
        let text = ron::ser::to_string(scene).map_err(std::io::Error::other)?;
        let mut w = BinaryWriter { out, hashes: Vec::new(), first: 0, steps: 0, keyframes: 0, actions: 0 };
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
    pub fn keyframe(&mut self, snapshot: &Snapshot) -> std::io::Result<()> {
        self.flush_hashes()?;
        self.keyframes += 1;
        self.chunk(TAG_KEYFRAME, &codec::to_bytes(snapshot).map_err(io)?)
    }

    /// Records an action (applied after the hashes already given).
    pub fn action(&mut self, action: &TimedAction) -> std::io::Result<()> {
        self.flush_hashes()?;
        self.actions += 1;
        let text = ron::ser::to_string(action).map_err(std::io::Error::other)?;
        self.chunk(TAG_ACTION, text.as_bytes())
    }

    /// Records the hash of the next step.
    pub fn hash(&mut self, hash: u64) -> std::io::Result<()> {
        self.hashes.push(hash);
        self.steps += 1;
        if self.hashes.len() >= HASH_BLOCK { self.flush_hashes() } else { Ok(()) }
    }

    /// Writes the end chunk and hands back the output.
    pub fn finish(mut self) -> std::io::Result<W> {
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
    pub fn new(out: W, scene: &Scene, world: &World, keyframe_interval: u32) -> std::io::Result<Self> {
        let mut scene = scene.clone();
        scene.settings = world.settings.clone();
        let interval = keyframe_interval.max(1);
        let mut writer = BinaryWriter::new(out, &scene, interval)?;
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
    pub fn to_binary(&self) -> Vec<u8> {
        let write = || -> std::io::Result<Vec<u8>> {
            let mut w = BinaryWriter::new(Vec::new(), &self.scene, self.keyframe_interval)?;
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
    /// chunk the damage is.
    pub fn from_binary(bytes: &[u8], path: &Path) -> Result<Recording, SceneError> {
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
                (TAG_KEYFRAME, Some(r)) => r.keyframes.push(codec::from_bytes::<Snapshot>(&payload).map_err(what)?),
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
        let rec = rec.ok_or_else(|| bad(pos, "the file holds no header chunk".into()))?;
        let Some([steps, keyframes, actions]) = end else {
            return Err(bad(
                pos,
                format!("the file ends after step {} without its end chunk: it is cut short", rec.steps()),
            ));
        };
        let have = [rec.steps(), rec.keyframes.len() as u64, rec.actions.len() as u64];
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
        Ok(rec)
    }
}

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
    use crate::math::Vec3;
    use crate::record::{Action, Recorder};
    use crate::scene::{BodyDesc, ShapeDesc};

    fn recorded(steps: u64) -> Recording {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut world = scene.build().unwrap();
        let mut rec = Recorder::new(&scene, &world, 10);
        for s in 0..steps {
            if s == 12 {
                let mut shot = BodyDesc::new(ShapeDesc::Sphere { radius: 0.2 }, Vec3::new(-5.0, 4.0, 0.0));
                shot.linear_velocity = Vec3::new(30.0, 0.0, 0.0);
                rec.apply(&mut world, Action::AddBody(shot)).unwrap();
            }
            rec.step(&mut world);
        }
        rec.finish()
    }

    #[test]
    fn a_recording_round_trips_and_still_verifies() {
        let rec = recorded(45);
        let bytes = rec.to_binary();
        assert!(is_binary(&bytes));
        let back = Recording::from_binary(&bytes, Path::new("r.cdrec")).unwrap();
        assert_eq!(back, rec);
        assert_eq!(back.verify(), Ok(45));
    }

    #[test]
    fn the_streamed_file_equals_the_whole_recording_written_at_once() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut a = scene.build().unwrap();
        let mut b = scene.build().unwrap();
        let mut whole = Recorder::new(&scene, &a, 7);
        let mut stream = StreamRecorder::new(Vec::new(), &scene, &b, 7).unwrap();
        for _ in 0..1100 {
            whole.step(&mut a);
            stream.step(&mut b).unwrap();
        }
        assert_eq!(stream.finish().unwrap(), whole.finish().to_binary());
    }

    #[test]
    fn every_cut_and_every_flipped_byte_is_a_clear_error() {
        let bytes = recorded(25).to_binary();
        let path = Path::new("case.cdrec");
        for cut in 0..bytes.len() {
            let err = Recording::from_binary(&bytes[..cut], path).unwrap_err().to_string();
            assert!(err.starts_with("case.cdrec: byte "), "cut at {cut}: {err}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let err = Recording::from_binary(&bad, path).unwrap_err().to_string();
            assert!(err.starts_with("case.cdrec: byte "), "flip at {at}: {err}");
        }
        let mut later = bytes.clone();
        later[8] = 9;
        let err = Recording::from_binary(&later, path).unwrap_err().to_string();
        assert!(err.contains("version 9"), "{err}");
    }
}
