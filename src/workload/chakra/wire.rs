//! The Chakra ET wire format: the messages of `schema/protobuf/et_def.proto`
//! (mlcommons/chakra, proto3, package `ChakraProtoMsg`) that this reader needs,
//! declared by hand with the schema's field numbers, and the file framing.
//!
//! Framing (Chakra `src/third_party/utils/protoio.cc`, `protolib.py`
//! `encodeMessage`): each message is a varint32 byte length, then that many bytes.
//! The first message is a `GlobalMetadata`, every later one a `Node`. A file that
//! starts with the gzip magic `1f 8b` is a gzip stream of the same bytes.
//!
//! Fields this reader does not declare (`Node.inputs`/`outputs`, `IOInfo`,
//! `AttributeProto.doc_string`, the list and bytes kinds of the attribute value
//! other than `bool_list`) are skipped by prost as unknown fields, so they never
//! break decoding; an attribute holding only such a kind reads as having no value.

use std::borrow::Cow;
use std::io::Read;

/// `GlobalMetadata`: the first message of every file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GlobalMetadata {
    #[prost(string, tag = "1")]
    pub version: String,
    #[prost(message, repeated, tag = "2")]
    pub attr: Vec<AttributeProto>,
}

/// `Node`. `type` is the `NodeType` enum, an int32 on the wire; it is kept as the
/// raw number so an unknown value can be named in an error.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Node {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(int32, tag = "3")]
    pub node_type: i32,
    #[prost(uint64, repeated, tag = "4")]
    pub ctrl_deps: Vec<u64>,
    #[prost(uint64, repeated, tag = "5")]
    pub data_deps: Vec<u64>,
    #[prost(uint64, tag = "6")]
    pub start_time_micros: u64,
    #[prost(uint64, tag = "7")]
    pub duration_micros: u64,
    // 8 inputs, 9 outputs (IOInfo): not read.
    #[prost(message, repeated, tag = "10")]
    pub attr: Vec<AttributeProto>,
}

/// `NodeType` values (et_def.proto).
pub mod node_type {
    pub const INVALID: i32 = 0;
    pub const METADATA: i32 = 1;
    pub const MEM_LOAD: i32 = 2;
    pub const MEM_STORE: i32 = 3;
    pub const COMP: i32 = 4;
    pub const COMM_SEND: i32 = 5;
    pub const COMM_RECV: i32 = 6;
    pub const COMM_COLL: i32 = 7;
}

/// `AttributeProto`: a name and one value of the `value` oneof.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(
        oneof = "Value",
        tags = "3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 28, 29"
    )]
    pub value: Option<Value>,
}

/// The scalar kinds of `AttributeProto.value`, `bool_list` and `string_val`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Value {
    #[prost(double, tag = "3")]
    Double(f64),
    #[prost(float, tag = "5")]
    Float(f32),
    #[prost(int32, tag = "7")]
    Int32(i32),
    #[prost(int64, tag = "9")]
    Int64(i64),
    #[prost(uint32, tag = "11")]
    Uint32(u32),
    #[prost(uint64, tag = "13")]
    Uint64(u64),
    #[prost(sint32, tag = "15")]
    Sint32(i32),
    #[prost(sint64, tag = "17")]
    Sint64(i64),
    #[prost(fixed32, tag = "19")]
    Fixed32(u32),
    #[prost(fixed64, tag = "21")]
    Fixed64(u64),
    #[prost(sfixed32, tag = "23")]
    Sfixed32(i32),
    #[prost(sfixed64, tag = "25")]
    Sfixed64(i64),
    #[prost(bool, tag = "27")]
    Bool(bool),
    #[prost(message, tag = "28")]
    BoolList(BoolList),
    #[prost(string, tag = "29")]
    String(String),
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct BoolList {
    #[prost(bool, repeated, tag = "1")]
    pub values: Vec<bool>,
}

impl Value {
    /// The value of any integer kind, exactly. The writers differ in the kind they
    /// use (et_def.proto's consumers read `comm_size` as int64, `tensor_size` as
    /// uint64); astra-sim's FeederV3 converts between integer kinds, and so do we.
    pub fn integer(&self) -> Option<i128> {
        Some(match *self {
            Value::Int32(v) | Value::Sint32(v) | Value::Sfixed32(v) => v.into(),
            Value::Int64(v) | Value::Sint64(v) | Value::Sfixed64(v) => v.into(),
            Value::Uint32(v) | Value::Fixed32(v) => v.into(),
            Value::Uint64(v) | Value::Fixed64(v) => v.into(),
            _ => return None,
        })
    }

    /// The schema's name for this kind, for errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Double(_) => "double_val",
            Value::Float(_) => "float_val",
            Value::Int32(_) => "int32_val",
            Value::Int64(_) => "int64_val",
            Value::Uint32(_) => "uint32_val",
            Value::Uint64(_) => "uint64_val",
            Value::Sint32(_) => "sint32_val",
            Value::Sint64(_) => "sint64_val",
            Value::Fixed32(_) => "fixed32_val",
            Value::Fixed64(_) => "fixed64_val",
            Value::Sfixed32(_) => "sfixed32_val",
            Value::Sfixed64(_) => "sfixed64_val",
            Value::Bool(_) => "bool_val",
            Value::BoolList(_) => "bool_list",
            Value::String(_) => "string_val",
        }
    }
}

/// The most bytes a trace file may hold once decompressed.
pub const MAX_TRACE_BYTES: u64 = 1 << 32;

/// The file's bytes, decompressed when they start with the gzip magic. Errors
/// are messages without the file name.
pub fn load(raw: &[u8]) -> Result<Cow<'_, [u8]>, String> {
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return Ok(Cow::Borrowed(raw));
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(raw)
        .take(MAX_TRACE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("gzip stream is damaged: {e}"))?;
    if out.len() as u64 > MAX_TRACE_BYTES {
        return Err(format!(
            "decompresses to more than {MAX_TRACE_BYTES} bytes, the limit for one trace file"
        ));
    }
    Ok(Cow::Owned(out))
}

/// The length-delimited messages of `bytes`, in order, each as `(offset of
/// its length, message bytes)`. A length that is not a varint32 or runs past the
/// end is an error naming the offset where that message starts, and ends the walk.
pub fn frames(bytes: &[u8]) -> impl Iterator<Item = Result<(usize, &[u8]), (usize, String)>> {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        Some(match frame_at(bytes, start) {
            Ok((body, len)) => {
                at = body + len;
                Ok((start, &bytes[body..at]))
            }
            Err(m) => {
                at = bytes.len();
                Err((start, m))
            }
        })
    })
}

/// The message whose length starts at byte `at`: where its body starts, and
/// its length.
fn frame_at(bytes: &[u8], at: usize) -> Result<(usize, usize), String> {
    let mut rest = &bytes[at..];
    let len = prost::encoding::decode_varint(&mut rest)
        .map_err(|_| "message length is not a valid varint".to_string())?;
    if len > u64::from(u32::MAX) {
        return Err(format!("message length {len} exceeds a varint32"));
    }
    let len = len as usize;
    if len > rest.len() {
        return Err(format!(
            "truncated message: length {len} but only {} bytes remain",
            rest.len()
        ));
    }
    Ok((bytes.len() - rest.len(), len))
}
