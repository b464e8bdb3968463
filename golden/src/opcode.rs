//! BTH opcodes: which ones RoCEv2 carries and which extension headers follow
//! each. Source: IBTA vol. 1 table 38 as mirrored in Linux
//! `drivers/infiniband/sw/rxe/rxe_opcode.c`; CNP from the RoCEv2 annex A17.
//! The RTL holds the same table in `rtl/roce_opcode_decode.v`.

/// The set of extension headers an opcode carries, in wire order:
/// RETH, AtomicETH, AETH, AtomicAckETH, DETH, ImmDt, IETH, CNP reserved bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtHeaders {
    pub reth: bool,
    pub atomic: bool,
    pub aeth: bool,
    pub atomic_ack: bool,
    pub deth: bool,
    pub imm: bool,
    pub ieth: bool,
    /// The 16 reserved bytes that follow the BTH of a CNP.
    pub cnp: bool,
}

pub const RETH_LEN: usize = 16;
pub const ATOMIC_ETH_LEN: usize = 28;
pub const AETH_LEN: usize = 4;
pub const ATOMIC_ACK_ETH_LEN: usize = 8;
pub const DETH_LEN: usize = 8;
pub const IMM_LEN: usize = 4;
pub const IETH_LEN: usize = 4;
pub const CNP_RESERVED_LEN: usize = 16;
/// MetaRoCE's selective-ACK extension after an ACK's AETH (`SPEC.md` §6.10).
pub const SACK_EXT_LEN: usize = 12;
/// Its first bytes: 'M', 'S' (MetaRoCE, selective ACK), then its version.
pub const METAROCE_SACK_TAG: [u8; 2] = [0x4D, 0x53];
pub const METAROCE_SACK_VERSION: u8 = 1;

/// The CNP opcode of RoCEv2 (transport 100, operation 00001).
pub const CNP: u8 = 0x81;
/// RC ACKNOWLEDGE: BTH and AETH, the responder's ACKs and NAKs.
pub const RC_ACK: u8 = 0x11;

/// An RC SEND or RDMA WRITE request, the responder's input (`SPEC.md`
/// §6.10): SEND FIRST..ONLY with immediate (0x00-0x05), WRITE FIRST..ONLY
/// with immediate (0x06-0x0B), SEND LAST/ONLY with invalidate (0x16, 0x17).
/// READ requests and atomics (0x0C, 0x13, 0x14) are answered with data,
/// which the pipeline does not hold.
pub fn rc_request(opcode: u8) -> bool {
    matches!(opcode, 0x00..=0x0B | 0x16 | 0x17)
}

/// The last or only packet of an RC SEND or WRITE message: the responder's
/// message sequence number counts it.
pub fn message_end(opcode: u8) -> bool {
    matches!(opcode, 0x02..=0x05 | 0x08..=0x0B | 0x16 | 0x17)
}

impl ExtHeaders {
    /// Total length in bytes of the extension headers.
    pub fn len(&self) -> usize {
        let sizes = [
            (self.reth, RETH_LEN),
            (self.atomic, ATOMIC_ETH_LEN),
            (self.aeth, AETH_LEN),
            (self.atomic_ack, ATOMIC_ACK_ETH_LEN),
            (self.deth, DETH_LEN),
            (self.imm, IMM_LEN),
            (self.ieth, IETH_LEN),
            (self.cnp, CNP_RESERVED_LEN),
        ];
        sizes.iter().filter(|(present, _)| *present).map(|(_, len)| len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte offset, from the end of the BTH, of each header in wire order.
    pub fn offsets(&self) -> ExtOffsets {
        let mut at = 0;
        let mut place = |present: bool, len: usize| {
            let here = at;
            if present {
                at += len;
            }
            here
        };
        ExtOffsets {
            reth: place(self.reth, RETH_LEN),
            atomic: place(self.atomic, ATOMIC_ETH_LEN),
            aeth: place(self.aeth, AETH_LEN),
            atomic_ack: place(self.atomic_ack, ATOMIC_ACK_ETH_LEN),
            deth: place(self.deth, DETH_LEN),
            imm: place(self.imm, IMM_LEN),
            ieth: place(self.ieth, IETH_LEN),
        }
    }
}

/// Where each extension header starts, counted from the end of the BTH.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtOffsets {
    pub reth: usize,
    pub atomic: usize,
    pub aeth: usize,
    pub atomic_ack: usize,
    pub deth: usize,
    pub imm: usize,
    pub ieth: usize,
}

/// The extension headers of a RoCEv2 opcode, or `None` when the opcode is
/// not one RoCEv2 carries: reserved codes, RD and XRC (whose RDETH/XRCETH
/// this pipeline does not parse) and the manufacturer-specific range.
pub fn ext_headers(opcode: u8) -> Option<ExtHeaders> {
    let none = ExtHeaders::default();
    let transport = opcode >> 5;
    let operation = opcode & 0x1F;
    let h = match (transport, operation) {
        // RC (000) and UC (001) share the SEND and RDMA WRITE codes.
        (0 | 1, 0x00..=0x02 | 0x04 | 0x07 | 0x08) => none,
        (0 | 1, 0x03 | 0x05 | 0x09) => ExtHeaders { imm: true, ..none },
        (0 | 1, 0x06 | 0x0A) => ExtHeaders { reth: true, ..none },
        (0 | 1, 0x0B) => ExtHeaders { reth: true, imm: true, ..none },
        // RC only: READ, ACK, ATOMIC and SEND with invalidate.
        (0, 0x0C) => ExtHeaders { reth: true, ..none },
        (0, 0x0D | 0x0F | 0x10 | 0x11) => ExtHeaders { aeth: true, ..none },
        (0, 0x0E) => none,
        (0, 0x12) => ExtHeaders { aeth: true, atomic_ack: true, ..none },
        (0, 0x13 | 0x14) => ExtHeaders { atomic: true, ..none },
        (0, 0x16 | 0x17) => ExtHeaders { ieth: true, ..none },
        // UD (011): SEND only, with or without immediate.
        (3, 0x04) => ExtHeaders { deth: true, ..none },
        (3, 0x05) => ExtHeaders { deth: true, imm: true, ..none },
        // CNP (100).
        (4, 0x01) => ExtHeaders { cnp: true, ..none },
        _ => return None,
    };
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_known_opcodes() {
        assert_eq!(ext_headers(0x04).unwrap().len(), 0); // RC SEND only
        assert_eq!(ext_headers(0x0C).unwrap().len(), 16); // RC READ request
        assert_eq!(ext_headers(0x0B).unwrap().len(), 20); // RC WRITE only imm
        assert_eq!(ext_headers(0x12).unwrap().len(), 12); // RC ATOMIC ACK
        assert_eq!(ext_headers(0x13).unwrap().len(), 28); // RC CmpSwap
        assert_eq!(ext_headers(0x2B).unwrap().len(), 20); // UC WRITE only imm
        assert_eq!(ext_headers(0x65).unwrap().len(), 12); // UD SEND only imm
        assert_eq!(ext_headers(0x81).unwrap().len(), 16); // CNP
        for reserved in [0x15, 0x18, 0x1F, 0x2C, 0x2D, 0x0C | 0x20, 0x40, 0x60, 0x80, 0xA0, 0xC0, 0xFF] {
            assert_eq!(ext_headers(reserved), None, "opcode {reserved:#04x}");
        }
    }

    #[test]
    fn counts_carried_opcodes() {
        let carried = (0..=255u8).filter(|&op| ext_headers(op).is_some()).count();
        // RC 23, UC 12, UD 2, CNP 1.
        assert_eq!(carried, 23 + 12 + 2 + 1);
    }

    #[test]
    fn offsets_follow_wire_order() {
        let h = ext_headers(0x0B).unwrap();
        assert_eq!((h.offsets().reth, h.offsets().imm), (0, 16));
        let h = ext_headers(0x65).unwrap();
        assert_eq!((h.offsets().deth, h.offsets().imm), (0, 8));
        let h = ext_headers(0x12).unwrap();
        assert_eq!((h.offsets().aeth, h.offsets().atomic_ack), (0, 4));
    }
}
