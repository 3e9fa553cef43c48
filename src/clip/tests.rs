use super::*;

/// A `w × h` frame: a dark background with a light square of side 8 at `(x, y)`, and a
/// horizontal colour ramp along the top row (more colours than a flat picture has).
fn frame(w: u32, h: u32, x: u32, y: u32) -> Image {
    let mut rgba = Vec::with_capacity((w * h * 4) as usize);
    for py in 0..h {
        for px in 0..w {
            let inside = (x..x + 8).contains(&px) && (y..y + 8).contains(&py);
            let c = if inside {
                [230, 200, 60]
            } else if py == 0 {
                [(px * 255 / w.max(1)) as u8, 90, 200]
            } else {
                [27, 29, 36]
            };
            rgba.extend_from_slice(&[c[0], c[1], c[2], 255]);
        }
    }
    Image { width: w, height: h, rgba }
}

/// Decodes a GIF into its composited frames (each frame drawn over the last, transparent pixels
/// keeping what was there) and their delays.
fn decode(bytes: &[u8]) -> (u16, u16, Vec<Vec<u8>>, Vec<u16>, gif::Repeat) {
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(bytes).unwrap();
    let (w, h) = (d.width(), d.height());
    let mut canvas = vec![0u8; w as usize * h as usize * 4];
    let (mut frames, mut delays) = (Vec::new(), Vec::new());
    while let Some(f) = d.read_next_frame().unwrap() {
        for y in 0..f.height as usize {
            for x in 0..f.width as usize {
                let src = (y * f.width as usize + x) * 4;
                if f.buffer[src + 3] == 0 {
                    continue;
                }
                let dst = ((y + f.top as usize) * w as usize + x + f.left as usize) * 4;
                canvas[dst..dst + 4].copy_from_slice(&f.buffer[src..src + 4]);
            }
        }
        frames.push(canvas.clone());
        delays.push(f.delay);
    }
    let repeat = d.repeat();
    (w, h, frames, delays, repeat)
}

#[test]
fn the_range_holds_from_then_every_kth_step_up_to_to() {
    let r = ClipRange::new(10, 20, 3, Some(40)).unwrap();
    assert_eq!(r.steps().collect::<Vec<_>>(), [10, 13, 16, 19]);
    assert_eq!(r.frames(), 4);
    assert_eq!(r.step(3), Some(19));
    assert_eq!(r.step(4), None);
    assert_eq!(r.last(), 19);
    let one = ClipRange::new(5, 5, 1, None).unwrap();
    assert_eq!(one.steps().collect::<Vec<_>>(), [5]);
    // The recording's last step may be shown.
    assert_eq!(ClipRange::new(0, 40, 10, Some(40)).unwrap().steps().last(), Some(40));
}

#[test]
fn a_bad_range_is_refused_naming_the_flag() {
    let e = ClipRange::new(20, 10, 1, None).unwrap_err().to_string();
    assert!(e.contains("--to 10 is before --from 20"), "{e}");
    let e = ClipRange::new(0, 41, 1, Some(40)).unwrap_err().to_string();
    assert!(e.contains("--to 41 is beyond the recording's end: it has 40 steps"), "{e}");
    let e = ClipRange::new(50, 60, 1, Some(40)).unwrap_err().to_string();
    assert!(e.contains("--from 50"), "{e}");
    assert!(matches!(ClipRange::new(0, 10, 0, None), Err(ClipError::Every)));
    let e = ClipRange::new(0, 10 * MAX_FRAMES as u64, 1, None).unwrap_err().to_string();
    assert!(e.contains("raise --every"), "{e}");
    assert!(ClipRange::new(0, MAX_FRAMES as u64 - 1, 1, None).is_ok());
}

#[test]
fn the_delay_is_real_time_unless_a_rate_is_given() {
    // 60 Hz, one step a frame: 1.7 cs, raised to the 2 cs viewers keep.
    assert_eq!(frame_delay(None, 1.0 / 60.0, 1).unwrap(), 2);
    assert_eq!(frame_delay(None, 1.0 / 60.0, 3).unwrap(), 5);
    assert_eq!(frame_delay(Some(25), 1.0 / 60.0, 1).unwrap(), 4);
    assert_eq!(frame_delay(Some(10), 1.0 / 60.0, 1).unwrap(), 10);
    assert!(matches!(frame_delay(Some(0), 0.01, 1), Err(ClipError::Fps(0))));
    assert!(matches!(frame_delay(Some(51), 0.01, 1), Err(ClipError::Fps(51))));
}

#[test]
fn a_gif_decodes_to_the_frames_sizes_and_delays_given() {
    let (w, h) = (64, 36);
    let frames: Vec<Image> = (0..12).map(|i| frame(w, h, 4 * i, 10 + i)).collect();
    let bytes = encode_gif(&frames, 4).unwrap();
    let (dw, dh, decoded, delays, repeat) = decode(&bytes);
    assert_eq!((dw as u32, dh as u32), (w, h));
    assert_eq!(decoded.len(), frames.len());
    assert!(delays.iter().all(|&d| d == 4), "{delays:?}");
    assert_eq!(repeat, gif::Repeat::Infinite);
    // Each composited frame is the original within the palette's error: the flat colours
    // closely, the rare ramp colours of the top row more loosely.
    for (i, (got, want)) in decoded.iter().zip(&frames).enumerate() {
        let off = |a: &[u8], b: &[u8]| (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap();
        let rows = got.chunks(4 * w as usize).zip(want.rgba.chunks(4 * w as usize));
        for (y, (g, r)) in rows.enumerate() {
            let worst = g.chunks(4).zip(r.chunks(4)).map(|(a, b)| off(a, b)).max().unwrap();
            let bound = if y == 0 { 40 } else { 6 };
            assert!(worst <= bound, "frame {i}, row {y}: a pixel is off by {worst}");
        }
        // The square is where it was drawn.
        let p = ((10 + i as u32 + 4) * w + 4 * i as u32 + 4) as usize * 4;
        assert!(got[p] > 200 && got[p + 2] < 100, "frame {i}: {:?}", &got[p..p + 4]);
    }
}

#[test]
fn still_frames_cost_almost_nothing() {
    let still: Vec<Image> = (0..50).map(|_| frame(320, 180, 40, 40)).collect();
    let one = encode_gif(&still[..1], 2).unwrap().len();
    let all = encode_gif(&still, 2).unwrap().len();
    // Each repeated frame is one transparent pixel and its control block.
    assert!(all - one < 50 * 40, "one frame {one} B, fifty {all} B");
    let (_, _, decoded, _, _) = decode(&encode_gif(&still, 2).unwrap());
    assert_eq!(decoded.len(), 50);
    assert!(decoded.iter().all(|f| f == &decoded[0]));
}

#[test]
fn frames_of_another_size_or_none_are_refused() {
    let e = encode_gif(&[frame(16, 16, 0, 0), frame(16, 8, 0, 0)], 2).unwrap_err().to_string();
    assert!(e.contains("frame 1 is 16x8") && e.contains("16x16"), "{e}");
    assert!(matches!(encode_gif(&[], 2), Err(ClipError::NoFrames)));
    let mut short = frame(8, 8, 0, 0);
    short.rgba.truncate(10);
    assert!(encode_gif(&[short], 2).unwrap_err().to_string().contains("holds 10 bytes"));
}

#[test]
fn resizing_averages_and_keeps_flat_colour() {
    let f = frame(64, 36, 0, 10);
    let half = f.resized(32, 18);
    assert_eq!((half.width, half.height, half.rgba.len()), (32, 18, 32 * 18 * 4));
    // A flat area stays its colour; the 8-pixel square becomes 4 pixels across.
    assert_eq!(&half.rgba[(10 * 32 + 20) * 4..][..3], &[27, 29, 36]);
    assert_eq!(&half.rgba[(6 * 32 + 1) * 4..][..3], &[230, 200, 60]);
    let same = f.resized(64, 36);
    assert_eq!(same, f);
    let up = frame(4, 4, 0, 0).resized(9, 7);
    assert_eq!((up.width, up.height), (9, 7));
}

#[test]
fn the_output_is_a_gif_or_a_folder() {
    let dir = std::env::temp_dir().join(format!("clip_out_{}", std::process::id()));
    assert_eq!(ClipOutput::from_path(Path::new("a/case.gif"), false).unwrap(), ClipOutput::Gif("a/case.gif".into()));
    assert_eq!(ClipOutput::from_path(Path::new("frames/"), false).unwrap(), ClipOutput::Pngs("frames/".into()));
    assert_eq!(ClipOutput::from_path(Path::new("frames"), true).unwrap(), ClipOutput::Pngs("frames".into()));
    let e = ClipOutput::from_path(Path::new("case.mp4"), false).unwrap_err().to_string();
    assert!(e.contains("case.mp4") && e.contains(".gif"), "{e}");
    // A folder is made; an unwritable place is an error now.
    ClipOutput::Pngs(dir.join("pngs")).check().unwrap();
    assert!(dir.join("pngs").is_dir());
    assert!(ClipOutput::Gif(dir.join("missing/x.gif")).check().is_err());
    let written = dir.join("w.gif");
    write_gif(&written, &[frame(8, 8, 0, 0)], 2).unwrap();
    assert_eq!(&std::fs::read(&written).unwrap()[..6], b"GIF89a");
    std::fs::remove_dir_all(&dir).unwrap();
}
