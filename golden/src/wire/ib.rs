//! The InfiniBand transport headers RoCEv2 carries over UDP: the BTH, the
//! extension headers (IBTA vol. 1, 9.2-9.3; `../shared/REFERENCE.md`) and
//! the reserved bytes of a CNP (RoCEv2 annex A17), where MetaRoCE puts the
//! CE extent (`SPEC.md` §6.3).

use super::field::{header_view, plain_header};
use crate::cn_event::{METAROCE_CNP_TAG, METAROCE_V2_CNP_TAG};
use crate::opcode::{
    AETH_LEN, ATOMIC_ACK_ETH_LEN, ATOMIC_ETH_LEN, CNP_RESERVED_LEN, DETH_LEN, IETH_LEN, IMM_LEN, METAROCE_SACK_TAG,
    METAROCE_SACK_VERSION, RETH_LEN, SACK_EXT_LEN,
};

/// Offset of the FECN/BECN byte in the BTH, which the ICRC treats as all ones.
pub const BTH_FECN_BECN_OFFSET: usize = 4;

header_view!(
    /// The Base Transport Header.
    Bth, 12, {
        opcode, set_opcode: u8 = u8_at, set_u8 @ 0;
        /// SE (7), MigReq (6), PadCnt (5:4), TVer (3:0).
        flags, set_flags: u8 = u8_at, set_u8 @ 1;
        pkey, set_pkey: u16 = u16_at, set_u16 @ 2;
        /// FECN (7), BECN (6), reserved (5:0).
        fecn_becn, set_fecn_becn: u8 = u8_at, set_u8 @ 4;
        dest_qp, set_dest_qp: u32 = u24_at, set_u24 @ 5;
        /// AckReq (7), reserved (6:0).
        ack_req_byte, set_ack_req_byte: u8 = u8_at, set_u8 @ 8;
        psn, set_psn: u32 = u24_at, set_u24 @ 9;
    }
);

impl<T: AsRef<[u8]>> Bth<T> {
    pub fn se(&self) -> bool {
        self.flags() & 0x80 != 0
    }
    pub fn mig_req(&self) -> bool {
        self.flags() & 0x40 != 0
    }
    pub fn pad_cnt(&self) -> u8 {
        self.flags() >> 4 & 3
    }
    pub fn tver(&self) -> u8 {
        self.flags() & 0x0F
    }
    pub fn fecn(&self) -> bool {
        self.fecn_becn() & 0x80 != 0
    }
    pub fn becn(&self) -> bool {
        self.fecn_becn() & 0x40 != 0
    }
    pub fn ack_req(&self) -> bool {
        self.ack_req_byte() & 0x80 != 0
    }
}

/// A BTH as values; reserved bits are emitted as zeros.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BthRepr {
    pub opcode: u8,
    pub se: bool,
    pub mig_req: bool,
    pub pad_cnt: u8,
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    pub dest_qp: u32,
    pub ack_req: bool,
    pub psn: u32,
}

impl BthRepr {
    pub const LEN: usize = 12;

    pub fn parse<T: AsRef<[u8]>>(bth: &Bth<T>) -> Self {
        BthRepr {
            opcode: bth.opcode(),
            se: bth.se(),
            mig_req: bth.mig_req(),
            pad_cnt: bth.pad_cnt(),
            tver: bth.tver(),
            pkey: bth.pkey(),
            fecn: bth.fecn(),
            becn: bth.becn(),
            dest_qp: bth.dest_qp(),
            ack_req: bth.ack_req(),
            psn: bth.psn(),
        }
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, bth: &mut Bth<T>) {
        bth.set_opcode(self.opcode);
        let flags = u8::from(self.se) << 7 | u8::from(self.mig_req) << 6 | (self.pad_cnt & 3) << 4 | (self.tver & 0x0F);
        bth.set_flags(flags);
        bth.set_pkey(self.pkey);
        bth.set_fecn_becn(u8::from(self.fecn) << 7 | u8::from(self.becn) << 6);
        bth.set_dest_qp(self.dest_qp);
        bth.set_ack_req_byte(u8::from(self.ack_req) << 7);
        bth.set_psn(self.psn);
    }

    /// The header's bytes.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut bytes = [0u8; Self::LEN];
        self.emit(&mut Bth::new_unchecked(&mut bytes[..]));
        bytes
    }
}

plain_header!(
    /// RDMA Extended Transport Header.
    Reth / RethRepr, RETH_LEN, {
        va, set_va: u64 = u64_at, set_u64 @ 0;
        rkey, set_rkey: u32 = u32_at, set_u32 @ 8;
        dma_len, set_dma_len: u32 = u32_at, set_u32 @ 12;
    }
);

plain_header!(
    /// Atomic Extended Transport Header.
    AtomicEth / AtomicEthRepr, ATOMIC_ETH_LEN, {
        va, set_va: u64 = u64_at, set_u64 @ 0;
        rkey, set_rkey: u32 = u32_at, set_u32 @ 8;
        swap_add, set_swap_add: u64 = u64_at, set_u64 @ 12;
        compare, set_compare: u64 = u64_at, set_u64 @ 20;
    }
);

plain_header!(
    /// ACK Extended Transport Header.
    Aeth / AethRepr, AETH_LEN, {
        syndrome, set_syndrome: u8 = u8_at, set_u8 @ 0;
        msn, set_msn: u32 = u24_at, set_u24 @ 1;
    }
);

plain_header!(
    /// Atomic ACK Extended Transport Header.
    AtomicAckEth / AtomicAckEthRepr, ATOMIC_ACK_ETH_LEN, {
        orig, set_orig: u64 = u64_at, set_u64 @ 0;
    }
);

plain_header!(
    /// Datagram Extended Transport Header.
    Deth / DethRepr, DETH_LEN, {
        qkey, set_qkey: u32 = u32_at, set_u32 @ 0;
        reserved, set_reserved: u8 = u8_at, set_u8 @ 4;
        src_qp, set_src_qp: u32 = u24_at, set_u24 @ 5;
    }
);

plain_header!(
    /// Immediate data.
    ImmDt / ImmDtRepr, IMM_LEN, {
        data, set_data: u32 = u32_at, set_u32 @ 0;
    }
);

plain_header!(
    /// Invalidate Extended Transport Header.
    Ieth / IethRepr, IETH_LEN, {
        rkey, set_rkey: u32 = u32_at, set_u32 @ 0;
    }
);

header_view!(
    /// The 16 reserved bytes after a CNP's BTH. A MetaRoCE CNP starts them
    /// with its tag ('M', then the version) and the CE extent (Q1.15); a
    /// version-2 CNP carries the receiver's fair share after them
    /// (`SPEC.md` §6.9): flags, the share of the receiver's line rate
    /// (Q1.15), the active senders and the share's sequence number.
    CnpPayload, CNP_RESERVED_LEN, {
        tag, set_tag: [u8; 2] = bytes_at, set_bytes @ 0;
        extent, set_extent: u16 = u16_at, set_u16 @ 2;
        flags, set_flags: u8 = u8_at, set_u8 @ 4;
        share, set_share: u16 = u16_at, set_u16 @ 6;
        active, set_active: u16 = u16_at, set_u16 @ 8;
        seq, set_seq: u16 = u16_at, set_u16 @ 10;
    }
);

impl<T: AsRef<[u8]>> CnpPayload<T> {
    /// The CE extent, when the tag says the bytes carry one (either version).
    pub fn metaroce_extent(&self) -> Option<u16> {
        [METAROCE_CNP_TAG, METAROCE_V2_CNP_TAG].contains(&self.tag()).then(|| self.extent())
    }

    /// The fair share, when the tag is version 2's.
    pub fn fair_share(&self) -> Option<FairShare> {
        (self.tag() == METAROCE_V2_CNP_TAG)
            .then(|| FairShare::from_fields(self.flags(), self.share(), self.active(), self.seq()))
    }
}

/// What a MetaRoCE v2 CNP tells its sender (`SPEC.md` §6.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct FairShare {
    /// A CE-marked packet set it off (the sender cuts).
    pub ce: bool,
    /// The share changed (no mark needed).
    pub proactive: bool,
    /// The share is the one told before, told again (soft state).
    pub refresh: bool,
    /// The sender's share of the receiver's line rate, Q1.15.
    pub share: u16,
    /// Senders the receiver counts as active.
    pub active: u16,
    /// Counts the receiver's share changes (mod 2^16): a sender ignores a
    /// share older than the newest it has.
    pub seq: u16,
}

impl FairShare {
    pub const CE: u8 = 1;
    pub const PROACTIVE: u8 = 2;
    pub const REFRESH: u8 = 4;

    /// From the flag byte (its reserved bits dropped) and the three fields.
    pub fn from_fields(flags: u8, share: u16, active: u16, seq: u16) -> Self {
        FairShare {
            ce: flags & Self::CE != 0,
            proactive: flags & Self::PROACTIVE != 0,
            refresh: flags & Self::REFRESH != 0,
            share,
            active,
            seq,
        }
    }

    fn flags(&self) -> u8 {
        (u8::from(self.ce) * Self::CE)
            | (u8::from(self.proactive) * Self::PROACTIVE)
            | (u8::from(self.refresh) * Self::REFRESH)
    }
}

/// A CNP's reserved bytes as values: zeros, the MetaRoCE (v1) tag and
/// extent, or v2's tag, extent and fair share. A v2 CNP always carries an
/// extent (0 when `extent` is None: it parses back as `Some(0)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CnpRepr {
    pub extent: Option<u16>,
    pub share: Option<FairShare>,
}

impl CnpRepr {
    pub const LEN: usize = CNP_RESERVED_LEN;

    pub fn parse<T: AsRef<[u8]>>(payload: &CnpPayload<T>) -> Self {
        CnpRepr { extent: payload.metaroce_extent(), share: payload.fair_share() }
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, payload: &mut CnpPayload<T>) {
        let tag = match (self.share, self.extent) {
            (Some(_), _) => METAROCE_V2_CNP_TAG,
            (None, Some(_)) => METAROCE_CNP_TAG,
            (None, None) => [0; 2],
        };
        payload.set_tag(tag);
        payload.set_extent(self.extent.unwrap_or(0));
        let share = self.share.unwrap_or_default();
        payload.set_flags(share.flags());
        payload.set_share(share.share);
        payload.set_active(share.active);
        payload.set_seq(share.seq);
    }

    /// The 16 bytes (zero where the version has no field).
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut bytes = [0u8; Self::LEN];
        self.emit(&mut CnpPayload::new_unchecked(&mut bytes[..]));
        bytes
    }
}

header_view!(
    /// MetaRoCE's selective-ACK extension: the 12 bytes after the AETH of
    /// an ACK sent with `ack_mode` metaroce (`SPEC.md` §6.10). The tag
    /// ('M', 'S') and its version (1), a flag byte, then the bitmap of the
    /// PSNs received past the first missing one, big-endian: bit i is
    /// PSN AETH.PSN + 2 + i (the AETH's PSN is the last in order, so the
    /// PSN after it is missing).
    SackExt, SACK_EXT_LEN, {
        tag, set_tag: [u8; 2] = bytes_at, set_bytes @ 0;
        version, set_version: u8 = u8_at, set_u8 @ 2;
        flags, set_flags: u8 = u8_at, set_u8 @ 3;
        bitmap, set_bitmap: u64 = u64_at, set_u64 @ 4;
    }
);

/// What a selective ACK says beyond its AETH.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct SackRepr {
    /// Bit i: PSN AETH.PSN + 2 + i was received.
    pub bitmap: u64,
    /// A packet past the bitmap's window was dropped since the expected
    /// PSN last moved (the sender sends again from past the window).
    pub beyond: bool,
}

impl SackRepr {
    pub const LEN: usize = SACK_EXT_LEN;
    /// The flag byte's bit for `beyond`; the other bits are reserved (0).
    pub const BEYOND: u8 = 1;

    /// The extension's meaning, when its tag and version are this one's.
    pub fn parse<T: AsRef<[u8]>>(ext: &SackExt<T>) -> Option<Self> {
        (ext.tag() == METAROCE_SACK_TAG && ext.version() == METAROCE_SACK_VERSION)
            .then(|| SackRepr { bitmap: ext.bitmap(), beyond: ext.flags() & Self::BEYOND != 0 })
    }

    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, ext: &mut SackExt<T>) {
        ext.set_tag(METAROCE_SACK_TAG);
        ext.set_version(METAROCE_SACK_VERSION);
        ext.set_flags(u8::from(self.beyond) * Self::BEYOND);
        ext.set_bitmap(self.bitmap);
    }

    /// The 12 bytes.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut bytes = [0u8; Self::LEN];
        self.emit(&mut SackExt::new_unchecked(&mut bytes[..]));
        bytes
    }
}
