//! The serde format of a binary recording's chunks: CBOR (RFC 8949) through `ciborium`.
//! Structs are maps keyed by field name, so fields a type skips when serialising
//! (`skip_serializing_if`) read back as their defaults, as they do from RON. Floats are stored
//! in the shortest CBOR width that holds their exact bits (an `f32` may take two bytes as a
//! half-precision float), so a round trip is bit-exact, `-0.0` included.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Why a value could not be encoded or decoded; the message says what and at which byte.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct CodecError(pub(super) String);

/// Encodes `value`.
pub(super) fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    ciborium::into_writer(value, &mut out).map_err(|e| CodecError(format!("cannot encode: {e}")))?;
    Ok(out)
}

/// Decodes a `T` that must fill `bytes` exactly.
pub(super) fn from_bytes<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    use ciborium::de::Error;
    let mut rest = bytes;
    let value = ciborium::from_reader(&mut rest).map_err(|e| {
        CodecError(match e {
            Error::Io(_) => "the value is cut short".to_string(),
            Error::Syntax(at) => format!("malformed data at byte {at}"),
            Error::Semantic(Some(at), m) => format!("at byte {at}: {m}"),
            Error::Semantic(None, m) => m,
            Error::RecursionLimitExceeded => "the value nests too deeply".to_string(),
        })
    })?;
    if !rest.is_empty() {
        let at = bytes.len() - rest.len();
        return Err(CodecError(format!("{} bytes left over after the value at byte {at}", rest.len())));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;
    use serde::Deserialize;

    #[test]
    fn a_world_snapshot_round_trips_bit_for_bit() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut w = scene.build().unwrap();
        for _ in 0..30 {
            w.step();
        }
        let snap = w.snapshot();
        let bytes = to_bytes(&snap).unwrap();
        let back: crate::world::Snapshot = from_bytes(&bytes).unwrap();
        assert_eq!(back, snap);
        // Each float's width and bytes follow its bits, so equal bytes mean equal bits
        // (`==` alone would take -0.0 for 0.0).
        assert_eq!(to_bytes(&back).unwrap(), bytes);
        let mut restored = scene.build().unwrap();
        restored.restore(&back).unwrap();
        assert_eq!(restored.hash(), w.hash());
        let scene_back: Scene = from_bytes(&to_bytes(&scene).unwrap()).unwrap();
        assert_eq!(scene_back, scene);
    }

    #[test]
    fn floats_keep_their_exact_bits_in_every_width() {
        let f32s = [
            -0.0f32,
            0.0,
            0.5,                         // a half-precision float
            -65504.0,                    // the largest half
            f32::from_bits(0x3380_0000), // 2^-24, the smallest half subnormal
            1.0 / 3.0,                   // single precision only
            f32::MIN_POSITIVE,           // below the half range
            f32::from_bits(1),           // the smallest f32 subnormal
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let f64s = [-0.0f64, 0.1, f64::from_bits(1), f64::MAX, 0.25];
        let back: (Vec<f32>, Vec<f64>) = from_bytes(&to_bytes(&(f32s, f64s)).unwrap()).unwrap();
        assert_eq!(back.0.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), f32s.map(f32::to_bits));
        assert_eq!(back.1.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), f64s.map(f64::to_bits));
    }

    #[test]
    fn skipped_fields_read_back_as_their_defaults() {
        #[derive(Serialize)]
        struct Written {
            a: u32,
            #[serde(skip_serializing_if = "Option::is_none")]
            b: Option<u32>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            c: Vec<u32>,
        }
        #[derive(Deserialize, Debug, PartialEq)]
        struct Read {
            a: u32,
            b: Option<u32>,
            #[serde(default)]
            c: Vec<u32>,
        }
        let back: Read = from_bytes(&to_bytes(&Written { a: 7, b: None, c: Vec::new() }).unwrap()).unwrap();
        assert_eq!(back, Read { a: 7, b: None, c: Vec::new() });
    }

    #[test]
    fn every_truncation_and_trailing_byte_is_an_error_not_a_panic() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let w = scene.build().unwrap();
        let bytes = to_bytes(&w.snapshot()).unwrap();
        for cut in 0..bytes.len() {
            assert!(from_bytes::<crate::world::Snapshot>(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        let err = from_bytes::<crate::world::Snapshot>(&longer).unwrap_err().to_string();
        assert!(err.contains("1 bytes left over"), "{err}");
    }
}
