//! Clips of a run: which steps become frames, and the frames written as an animated GIF (one
//! palette for the whole clip, each frame only the rectangle that changed since the last) or as
//! a numbered PNG sequence. Rendering the frames is the app's (`app::clip`); this part is
//! headless.

use crate::scene::{AtomicFile, SceneError, write_atomic};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Most frames one clip may hold: every frame is kept in memory until the GIF's palette is made.
pub const MAX_FRAMES: usize = 2000;

/// Fastest frame rate a GIF plays reliably: its delays are in hundredths of a second, and
/// viewers slow delays under 2 down to 10.
pub const MAX_FPS: u32 = 50;

/// The transparent palette index: a pixel unchanged since the previous frame.
const TRANSPARENT: u8 = 255;

/// Why a clip could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ClipError {
    /// `--to` names a step before `--from`.
    #[error("--to {to} is before --from {from}: give a range that runs forward")]
    Backwards {
        /// The first step asked for.
        from: u64,
        /// The last step asked for.
        to: u64,
    },
    /// The range runs past the last step of the recording.
    #[error("--{flag} {step} is beyond the recording's end: it has {end} steps")]
    PastEnd {
        /// `from` or `to`.
        flag: &'static str,
        /// The step asked for.
        step: u64,
        /// The recording's steps.
        end: u64,
    },
    /// `--every 0`.
    #[error("--every must be at least 1 step")]
    Every,
    /// More frames than [`MAX_FRAMES`].
    #[error("the clip would have {0} frames, more than {MAX_FRAMES}: raise --every or narrow --from/--to")]
    TooManyFrames(usize),
    /// A frame rate outside 1..=[`MAX_FPS`].
    #[error("--fps {0}: give a frame rate from 1 to {MAX_FPS} (GIF delays are hundredths of a second)")]
    Fps(u32),
    /// No frames to write.
    #[error("the clip has no frames")]
    NoFrames,
    /// Frames of different sizes, or larger than a GIF holds.
    #[error("frame {index} is {width}x{height}: {why}")]
    FrameSize {
        /// The frame, from 0.
        index: usize,
        /// Its width in pixels.
        width: u32,
        /// Its height in pixels.
        height: u32,
        /// What is wrong with it.
        why: String,
    },
    /// The output names neither a `.gif` file nor a folder.
    #[error("{}: a clip is written to a .gif file, or with --png (or a path ending in /) to a folder of PNGs", .0.display())]
    Output(PathBuf),
    /// The GIF encoder failed.
    #[error("encoding the GIF: {0}")]
    Encode(String),
    /// The output could not be written.
    #[error(transparent)]
    Write(#[from] SceneError),
}

/// The steps a clip shows: `from`, `from + every`, … up to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClipRange {
    /// The first step shown (0: the scene as built).
    pub from: u64,
    /// The last step that may be shown.
    pub to: u64,
    /// Steps between two frames.
    pub every: u64,
}

impl ClipRange {
    /// A range checked against the run: `end` is a recording's last step (`None` for a scene,
    /// which can run on). Refuses a backward range, one past the end, `every` 0 and more than
    /// [`MAX_FRAMES`] frames.
    pub fn new(from: u64, to: u64, every: u64, end: Option<u64>) -> Result<ClipRange, ClipError> {
        if every == 0 {
            return Err(ClipError::Every);
        }
        if to < from {
            return Err(ClipError::Backwards { from, to });
        }
        if let Some(end) = end {
            for (flag, step) in [("from", from), ("to", to)] {
                if step > end {
                    return Err(ClipError::PastEnd { flag, step, end });
                }
            }
        }
        let range = ClipRange { from, to, every };
        let frames = range.frames();
        if frames > MAX_FRAMES as u64 {
            return Err(ClipError::TooManyFrames(frames.min(usize::MAX as u64) as usize));
        }
        Ok(range)
    }

    /// The number of frames.
    pub fn frames(&self) -> u64 {
        (self.to - self.from) / self.every + 1
    }

    /// The step of frame `i`, or `None` past the last frame.
    pub fn step(&self, i: u64) -> Option<u64> {
        (i < self.frames()).then(|| self.from + i * self.every)
    }

    /// The step of the last frame.
    pub fn last(&self) -> u64 {
        self.from + (self.frames() - 1) * self.every
    }

    /// Every frame's step, in order.
    pub fn steps(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.frames()).map(|i| self.from + i * self.every)
    }
}

/// The delay between frames in hundredths of a second: `1/fps`, or with no frame rate given the
/// simulated time between two frames (`dt × every`, real time) as far as [`MAX_FPS`] allows.
pub fn frame_delay(fps: Option<u32>, dt: f64, every: u64) -> Result<u16, ClipError> {
    let seconds = match fps {
        Some(f) if !(1..=MAX_FPS).contains(&f) => return Err(ClipError::Fps(f)),
        Some(f) => 1.0 / f as f64,
        None => dt * every as f64,
    };
    Ok((seconds * 100.0).round().clamp(2.0, u16::MAX as f64) as u16)
}

/// One frame: opaque sRGB pixels, row by row, four bytes each (the fourth is ignored).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
}

impl Image {
    /// The pixel at `(x, y)` as RGB.
    fn rgb(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 4) as usize;
        [self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]
    }

    /// The image scaled to `width × height`, each output pixel the mean of the input pixels it
    /// covers (or the nearest one when enlarging): for a window whose pixels per point are not 1.
    pub fn resized(&self, width: u32, height: u32) -> Image {
        if (width, height) == (self.width, self.height) {
            return self.clone();
        }
        let mut rgba = Vec::with_capacity((width * height * 4) as usize);
        let span = |o: u32, out: u32, inp: u32| {
            let a = (o as u64 * inp as u64 / out as u64) as u32;
            let b = (((o as u64 + 1) * inp as u64).div_ceil(out as u64) as u32).clamp(a + 1, inp);
            (a, b)
        };
        for oy in 0..height {
            let (y0, y1) = span(oy, height, self.height);
            for ox in 0..width {
                let (x0, x1) = span(ox, width, self.width);
                let mut sum = [0u32; 3];
                for y in y0..y1 {
                    for x in x0..x1 {
                        let p = self.rgb(x, y);
                        (0..3).for_each(|c| sum[c] += p[c] as u32);
                    }
                }
                let n = (y1 - y0) * (x1 - x0);
                rgba.extend(sum.iter().map(|s| ((s + n / 2) / n) as u8));
                rgba.push(255);
            }
        }
        Image { width, height, rgba }
    }
}

/// Where a clip goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClipOutput {
    /// An animated GIF.
    Gif(PathBuf),
    /// A folder of `frame_0000.png`, `frame_0001.png`, …
    Pngs(PathBuf),
}

impl ClipOutput {
    /// A folder of PNGs for `--png`, a path ending in `/` or an existing folder; a GIF for a
    /// `.gif` name; anything else is refused.
    pub fn from_path(path: &Path, png: bool) -> Result<ClipOutput, ClipError> {
        let dir = png || path.as_os_str().to_string_lossy().ends_with('/') || path.is_dir();
        if dir {
            Ok(ClipOutput::Pngs(path.to_path_buf()))
        } else if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gif")) {
            Ok(ClipOutput::Gif(path.to_path_buf()))
        } else {
            Err(ClipError::Output(path.to_path_buf()))
        }
    }

    /// Fails now, leaving nothing behind, if the output could not be written after the frames
    /// are rendered (a PNG folder is made if missing).
    pub fn check(&self) -> Result<(), ClipError> {
        match self {
            ClipOutput::Gif(path) => AtomicFile::check(path)?,
            ClipOutput::Pngs(dir) => {
                std::fs::create_dir_all(dir).map_err(|source| SceneError::Io { path: dir.clone(), source })?;
                AtomicFile::check(&frame_path(dir, 0))?;
            }
        }
        Ok(())
    }
}

/// The file of PNG frame `i` in `dir`.
pub fn frame_path(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("frame_{i:04}.png"))
}

/// The frames as an animated GIF that loops, `delay` hundredths of a second apart. One palette
/// of 255 colours (NeuQuant over up to eight frames spread over the clip) serves every frame, so
/// still parts keep their colour; each frame after the first holds only the rectangle that
/// changed, its unchanged pixels transparent.
pub fn encode_gif(frames: &[Image], delay: u16) -> Result<Vec<u8>, ClipError> {
    let first = frames.first().ok_or(ClipError::NoFrames)?;
    let (w, h) = (first.width, first.height);
    let size_error =
        |i: usize, f: &Image, why: String| ClipError::FrameSize { index: i, width: f.width, height: f.height, why };
    for (i, f) in frames.iter().enumerate() {
        if (f.width, f.height) != (w, h) {
            return Err(size_error(i, f, format!("the clip's frames are {w}x{h}")));
        }
        if w == 0 || h == 0 || w > u16::MAX as u32 || h > u16::MAX as u32 {
            return Err(size_error(i, f, format!("a GIF frame is 1 to {} pixels a side", u16::MAX)));
        }
        if f.rgba.len() != (w * h * 4) as usize {
            return Err(size_error(i, f, format!("it holds {} bytes, not {}", f.rgba.len(), w * h * 4)));
        }
    }
    let quant = palette_of(frames);
    let mut palette = quant.color_map_rgb();
    palette.resize(256 * 3, 0);
    let mut gif = gif::Encoder::new(Vec::new(), w as u16, h as u16, &palette).map_err(encode)?;
    gif.set_repeat(gif::Repeat::Infinite).map_err(encode)?;
    let mut cache: HashMap<[u8; 3], u8> = HashMap::new();
    let mut prev: Option<Vec<u8>> = None;
    for f in frames {
        let indices: Vec<u8> = f
            .rgba
            .chunks_exact(4)
            .map(|p| {
                let rgb = [p[0], p[1], p[2]];
                *cache.entry(rgb).or_insert_with(|| quant.index_of(&[p[0], p[1], p[2], 255]) as u8)
            })
            .collect();
        let frame = match &prev {
            None => gif_frame(0, 0, w, h, indices.clone(), delay),
            Some(before) => changed_part(before, &indices, w, h, delay),
        };
        gif.write_frame(&frame).map_err(encode)?;
        prev = Some(indices);
    }
    gif.into_inner().map_err(encode)
}

/// Encodes `frames` and writes the GIF to `path` atomically.
pub fn write_gif(path: &Path, frames: &[Image], delay: u16) -> Result<(), ClipError> {
    write_atomic(path, &encode_gif(frames, delay)?)?;
    Ok(())
}

fn encode(e: gif::EncodingError) -> ClipError {
    ClipError::Encode(e.to_string())
}

/// NeuQuant's 255 colours for the clip, learnt from up to eight frames spread over it.
fn palette_of(frames: &[Image]) -> color_quant::NeuQuant {
    let picks = frames.len().min(8);
    let mut sample = Vec::new();
    for k in 0..picks {
        let i = if picks == 1 { 0 } else { k * (frames.len() - 1) / (picks - 1) };
        sample.extend_from_slice(&frames[i].rgba);
    }
    // Opaque: NeuQuant learns alpha too.
    sample.chunks_exact_mut(4).for_each(|p| p[3] = 255);
    color_quant::NeuQuant::new(10, TRANSPARENT as usize, &sample)
}

fn gif_frame(left: u32, top: u32, width: u32, height: u32, buffer: Vec<u8>, delay: u16) -> gif::Frame<'static> {
    gif::Frame {
        left: left as u16,
        top: top as u16,
        width: width as u16,
        height: height as u16,
        buffer: buffer.into(),
        delay,
        dispose: gif::DisposalMethod::Keep,
        transparent: Some(TRANSPARENT),
        ..Default::default()
    }
}

/// The rectangle of `now` that differs from `before`, unchanged pixels transparent; one
/// transparent pixel when nothing changed (the frame still takes its delay).
fn changed_part(before: &[u8], now: &[u8], w: u32, h: u32, delay: u16) -> gif::Frame<'static> {
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        let row = (y * w) as usize..((y + 1) * w) as usize;
        let (a, b) = (&before[row.clone()], &now[row]);
        if a == b {
            continue;
        }
        let first = a.iter().zip(b).position(|(p, q)| p != q).unwrap_or(0) as u32;
        let last = a.iter().zip(b).rposition(|(p, q)| p != q).unwrap_or(0) as u32;
        (x0, x1, y0, y1) = (x0.min(first), x1.max(last + 1), y0.min(y), y + 1);
    }
    if x1 <= x0 {
        return gif_frame(0, 0, 1, 1, vec![TRANSPARENT], delay);
    }
    let mut buffer = Vec::with_capacity(((x1 - x0) * (y1 - y0)) as usize);
    for y in y0..y1 {
        for x in x0..x1 {
            let i = (y * w + x) as usize;
            buffer.push(if before[i] == now[i] { TRANSPARENT } else { now[i] });
        }
    }
    gif_frame(x0, y0, x1 - x0, y1 - y0, buffer, delay)
}

#[cfg(test)]
mod tests;
