//! A compact binary serde format for the chunks of a binary recording: floats as their raw bits
//! (so a round trip is bit-exact), integers as LEB128 varints, enums by variant index, and
//! structs as a count of `(field name, value)` pairs, so fields a type skips when serialising
//! (`skip_serializing_if`) read back as their defaults, as they do from RON. It is not
//! self-describing beyond that: `deserialize_any` is refused with an error.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};
use std::fmt::Display;

/// Why a value could not be encoded or decoded; the message says what and at which byte.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct CodecError(pub(super) String);

impl ser::Error for CodecError {
    fn custom<T: Display>(msg: T) -> Self {
        CodecError(msg.to_string())
    }
}

impl de::Error for CodecError {
    fn custom<T: Display>(msg: T) -> Self {
        CodecError(msg.to_string())
    }
}

type Result<T> = std::result::Result<T, CodecError>;

/// Encodes `value`.
pub(super) fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut s = Encoder { out: Vec::new() };
    value.serialize(&mut s)?;
    Ok(s.out)
}

/// Decodes a `T` that must fill `bytes` exactly.
pub(super) fn from_bytes<'a, T: de::Deserialize<'a>>(bytes: &'a [u8]) -> Result<T> {
    let mut d = Decoder { bytes, pos: 0 };
    let v = T::deserialize(&mut d)?;
    if d.pos != bytes.len() {
        return Err(CodecError(format!("{} bytes left over after the value at byte {}", bytes.len() - d.pos, d.pos)));
    }
    Ok(v)
}

/// Appends `v` as an unsigned LEB128 varint.
pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
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

struct Encoder {
    out: Vec<u8>,
}

impl Encoder {
    fn varint(&mut self, v: u64) {
        put_varint(&mut self.out, v);
    }
    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }
    fn bytes(&mut self, b: &[u8]) {
        self.varint(b.len() as u64);
        self.out.extend_from_slice(b);
    }
}

/// A struct being encoded: its fields go to a buffer so their count can lead.
struct StructEncoder<'a> {
    enc: &'a mut Encoder,
    start: usize,
    fields: u64,
}

impl StructEncoder<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.enc.bytes(key.as_bytes());
        value.serialize(&mut *self.enc)?;
        self.fields += 1;
        Ok(())
    }
    fn end(self) -> Result<()> {
        // The count goes before the fields: encode it and move it into place.
        let mut count = Vec::new();
        put_varint(&mut count, self.fields);
        self.enc.out.splice(self.start..self.start, count);
        Ok(())
    }
}

impl<'a> ser::Serializer for &'a mut Encoder {
    type Ok = ();
    type Error = CodecError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = StructEncoder<'a>;
    type SerializeStructVariant = StructEncoder<'a>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out.push(v as u8);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.zigzag(v as i64);
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.zigzag(v as i64);
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.zigzag(v as i64);
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.zigzag(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.varint(v as u64);
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.varint(v as u64);
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.varint(v as u64);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.varint(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.out.extend_from_slice(&v.to_bits().to_le_bytes());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.out.extend_from_slice(&v.to_bits().to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.varint(v as u64);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.bytes(v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.bytes(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<()> {
        self.out.push(0);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        self.out.push(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> Result<()> {
        self.varint(index as u64);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        self.varint(index as u64);
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self> {
        let len = len.ok_or_else(|| CodecError("a sequence of unknown length".into()))?;
        self.varint(len as u64);
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, index: u32, _: &'static str, _: usize) -> Result<Self> {
        self.varint(index as u64);
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self> {
        let len = len.ok_or_else(|| CodecError("a map of unknown length".into()))?;
        self.varint(len as u64);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<StructEncoder<'a>> {
        let start = self.out.len();
        Ok(StructEncoder { enc: self, start, fields: 0 })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<StructEncoder<'a>> {
        self.varint(index as u64);
        let start = self.out.len();
        Ok(StructEncoder { enc: self, start, fields: 0 })
    }
}

macro_rules! elements {
    ($($tr:ident :: $m:ident),*) => {$(
        impl ser::$tr for &mut Encoder {
            type Ok = ();
            type Error = CodecError;
            fn $m<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
                value.serialize(&mut **self)
            }
            fn end(self) -> Result<()> {
                Ok(())
            }
        }
    )*};
}
elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for &mut Encoder {
    type Ok = ();
    type Error = CodecError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStruct for StructEncoder<'_> {
    type Ok = ();
    type Error = CodecError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        StructEncoder::end(self)
    }
}

impl ser::SerializeStructVariant for StructEncoder<'_> {
    type Ok = ();
    type Error = CodecError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<()> {
        StructEncoder::end(self)
    }
}

struct Decoder<'de> {
    bytes: &'de [u8],
    pos: usize,
}

impl<'de> Decoder<'de> {
    fn short(&self, what: &str) -> CodecError {
        CodecError(format!("the data ends at byte {} inside {what}", self.pos))
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&'de [u8]> {
        if self.bytes.len() - self.pos < n {
            return Err(self.short(what));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn byte(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }
    fn varint(&mut self) -> Result<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte("a number")?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CodecError(format!("a number longer than 64 bits at byte {}", self.pos)))
    }
    fn zigzag(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }
    fn int<T: TryFrom<u64>>(&mut self, what: &str) -> Result<T> {
        let at = self.pos;
        let v = self.varint()?;
        T::try_from(v).map_err(|_| CodecError(format!("{v} at byte {at} is out of range for {what}")))
    }
    fn signed<T: TryFrom<i64>>(&mut self, what: &str) -> Result<T> {
        let at = self.pos;
        let v = self.zigzag()?;
        T::try_from(v).map_err(|_| CodecError(format!("{v} at byte {at} is out of range for {what}")))
    }
    fn len(&mut self) -> Result<usize> {
        let at = self.pos;
        let n = self.varint()?;
        // Every element takes at least one byte, except units: a count beyond the bytes left is
        // damage, refused before anything is allocated for it.
        if n > (self.bytes.len() - self.pos) as u64 {
            return Err(CodecError(format!("a count of {n} at byte {at} exceeds the data")));
        }
        Ok(n as usize)
    }
    fn str(&mut self) -> Result<&'de str> {
        let n = self.len()?;
        let at = self.pos;
        std::str::from_utf8(self.take(n, "a string")?)
            .map_err(|_| CodecError(format!("the string at byte {at} is not UTF-8")))
    }
}

macro_rules! de_int {
    ($($m:ident $v:ident $t:ty, $how:ident);*) => {$(
        fn $m<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.$v(self.$how::<$t>(stringify!($t))?)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Decoder<'de> {
    type Error = CodecError;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(CodecError(format!("a value of unknown type at byte {}", self.pos)))
    }
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.pos;
        match self.byte("a flag")? {
            0 => visitor.visit_bool(false),
            1 => visitor.visit_bool(true),
            b => Err(CodecError(format!("a flag of {b} at byte {at}"))),
        }
    }
    de_int!(
        deserialize_u8 visit_u8 u8, int; deserialize_u16 visit_u16 u16, int;
        deserialize_u32 visit_u32 u32, int; deserialize_u64 visit_u64 u64, int;
        deserialize_i8 visit_i8 i8, signed; deserialize_i16 visit_i16 i16, signed;
        deserialize_i32 visit_i32 i32, signed; deserialize_i64 visit_i64 i64, signed
    );
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = self.take(4, "a number")?;
        visitor.visit_f32(f32::from_bits(u32::from_le_bytes(b.try_into().expect("4 bytes"))))
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let b = self.take(8, "a number")?;
        visitor.visit_f64(f64::from_bits(u64::from_le_bytes(b.try_into().expect("8 bytes"))))
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.pos;
        let v: u32 = self.int("a character")?;
        visitor.visit_char(char::from_u32(v).ok_or_else(|| CodecError(format!("no character {v} at byte {at}")))?)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.str()?)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.len()?;
        visitor.visit_borrowed_bytes(self.take(n, "bytes")?)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_bytes(visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let at = self.pos;
        match self.byte("an option")? {
            0 => visitor.visit_none(),
            1 => visitor.visit_some(self),
            b => Err(CodecError(format!("an option tag of {b} at byte {at}"))),
        }
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.len()?;
        visitor.visit_seq(Items { d: self, left: n })
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items { d: self, left: len })
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items { d: self, left: len })
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let n = self.len()?;
        visitor.visit_map(Items { d: self, left: n })
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let n = self.len()?;
        visitor.visit_map(Fields { d: self, left: n })
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
        Err(CodecError(format!("an unknown field's value at byte {}", self.pos)))
    }
    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The elements of a sequence, tuple or map.
struct Items<'a, 'de> {
    d: &'a mut Decoder<'de>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = CodecError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.d).map(Some)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = CodecError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.d).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.d)
    }
}

/// The `(name, value)` fields of a struct.
struct Fields<'a, 'de> {
    d: &'a mut Decoder<'de>,
    left: usize,
}

impl<'de> de::MapAccess<'de> for Fields<'_, 'de> {
    type Error = CodecError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let name = self.d.str()?;
        seed.deserialize(name.into_deserializer()).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.d)
    }
}

impl<'de> de::EnumAccess<'de> for &mut Decoder<'de> {
    type Error = CodecError;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let index: u32 = self.int("a variant")?;
        let v = seed.deserialize(index.into_deserializer())?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Decoder<'de> {
    type Error = CodecError;
    fn unit_variant(self) -> Result<()> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items { d: self, left: len })
    }
    fn struct_variant<V: Visitor<'de>>(self, _: &'static [&'static str], visitor: V) -> Result<V::Value> {
        let n = self.len()?;
        visitor.visit_map(Fields { d: self, left: n })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

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
        let scene_back: Scene = from_bytes(&to_bytes(&scene).unwrap()).unwrap();
        assert_eq!(scene_back, scene);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let w = scene.build().unwrap();
        let bytes = to_bytes(&w.snapshot()).unwrap();
        for cut in 0..bytes.len() {
            assert!(from_bytes::<crate::world::Snapshot>(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
