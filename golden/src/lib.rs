//! Bit-exact golden model of the metaroce pipeline: the executable form of
//! `SPEC.md`. Pure functions over byte buffers; no I/O.
//!
//! * [`wire`]: typed header structs (deku) for every header the parser reads.
//! * [`opcode`]: which extension headers each BTH opcode carries.
//! * [`icrc`]: CRC-32 and the RoCEv2 invariant CRC.
//! * [`parser`]: one [`record::ParseRecord`] per frame.

pub mod icrc;
pub mod opcode;
pub mod parser;
pub mod record;
pub mod wire;

pub use parser::{parse_frame, ParserConfig};
pub use record::{FrameClass, ParseError, ParseRecord};
