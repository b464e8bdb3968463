//! What the catalog's lists are made of: a capture with what its frames
//! must classify as, and the frame most captures start from.

use metaroce_golden::cn_event::NicConfig;
use metaroce_golden::opcode;
use metaroce_golden::ParseError;

use crate::capture::GenFrame;
use crate::dice::seq_value;
use crate::stimuli::RoceFrame;

/// A generated capture and what every frame of it must classify as.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Path under `pcaps/`; `.pcapng` files are written as pcapng.
    pub name: String,
    pub frames: Vec<GenFrame>,
    /// For the error captures: the class each frame must get.
    pub expect_error: Option<ParseError>,
    /// The NIC of a congestion-notification capture, written beside it
    /// as `NAME.nic.json`.
    pub nic: Option<NicConfig>,
}

/// A payload length that suits an opcode: CNPs, ACKs and READ requests
/// carry none.
fn payload_for(op: u8, seq: u32) -> usize {
    let h = opcode::ext_headers(op).unwrap_or_default();
    let bare = h.cnp || (h.aeth && op != 0x0D && op != 0x0F && op != 0x10) || op == 0x0C || h.atomic;
    if bare {
        0
    } else {
        (seq_value(seq, 99) % 300) as usize
    }
}

/// A frame of opcode `op` with fields and a payload from `seq`.
pub(super) fn roce(op: u8, seq: u32) -> RoceFrame {
    RoceFrame::new(op, seq).with_payload(payload_for(op, seq), seq)
}
