//! Bit-exact golden model of the metaroce pipeline: the executable form of
//! `SPEC.md`. Pure functions over byte buffers; no I/O.
//!
//! * [`wire`]: typed views and Reprs for every header the parser reads;
//!   [`frame`]: whole frames from them.
//! * [`opcode`]: which extension headers each BTH opcode carries.
//! * [`icrc`]: CRC-32 and the RoCEv2 invariant CRC.
//! * [`parser`]: one [`record::ParseRecord`] per frame.
//! * [`cn`]: congestion notification: [`cn_event`] (its input),
//!   [`notify`] (CNPs), [`reaction`] (DCQCN / MetaRoCE rates),
//!   [`cc_params`] (parameters and their fixed point, from the register
//!   table [`cc_table`]), [`cc_presets`] (the paper's, ns-3's and mlx5's
//!   defaults).
//! * [`responder`]: the RC responder's ACKs and NAKs (go-back-N), beside
//!   the notification point; [`requester`]: the send side's go-back-N,
//!   retransmit requests from the NAKs it receives.
//! * [`pacer`]: per-QP pacing in a timing wheel.
//! * [`pipeline`]: the whole top, parser to pacer.

pub mod cc_params;
pub mod cc_presets;
pub mod cc_table;
pub mod cn;
pub mod cn_event;
pub mod frame;
pub mod icrc;
pub mod notify;
pub mod opcode;
pub mod pacer;
pub mod parser;
pub mod pipeline;
pub mod reaction;
pub mod record;
pub mod requester;
pub mod responder;
pub mod wire;

pub use parser::{parse_frame, ParserConfig};
pub use record::{FrameClass, ParseError, ParseRecord};
