//! The parser's per-frame metadata record (`SPEC.md` "Parse record").
//!
//! A field is `Some` when its header's bytes are in the frame and every
//! outer header passed its checks; the RTL marks the same with valid bits.

use serde::{Deserialize, Serialize};

/// What the parser made of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FrameClass {
    #[default]
    Roce,
    NonRoce,
    Error,
}

impl FrameClass {
    pub const ALL: [FrameClass; 3] = [FrameClass::Roce, FrameClass::NonRoce, FrameClass::Error];
    /// The 2-bit code on the RTL's `m_meta_class` port.
    pub fn code(self) -> u8 {
        self as u8
    }
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.get(code as usize).copied()
    }
    pub fn name(self) -> &'static str {
        match self {
            FrameClass::Roce => "roce",
            FrameClass::NonRoce => "non_roce",
            FrameClass::Error => "error",
        }
    }
}

/// Error classes, in priority order: when several apply, the first listed
/// wins, because the parser checks outer layers before inner ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ParseError {
    /// The MAC flagged the frame (AXI-Stream `tuser` on the last beat;
    /// pcapng `epb_flags` FCS error).
    MacError = 1,
    TruncatedEth,
    TruncatedIp,
    BadIpVersion,
    BadIhl,
    BadIpv4Checksum,
    /// IPv4 total length shorter than the IPv4 header.
    BadIpLength,
    IpLengthExceedsFrame,
    IpFragment,
    Ipv6ExtHeader,
    TruncatedUdp,
    UdpLengthMismatch,
    TruncatedBth,
    BadTver,
    ReservedOpcode,
    TruncatedExt,
    TooShortForIcrc,
    BadIcrc,
}

impl ParseError {
    pub const ALL: [ParseError; 18] = [
        ParseError::MacError,
        ParseError::TruncatedEth,
        ParseError::TruncatedIp,
        ParseError::BadIpVersion,
        ParseError::BadIhl,
        ParseError::BadIpv4Checksum,
        ParseError::BadIpLength,
        ParseError::IpLengthExceedsFrame,
        ParseError::IpFragment,
        ParseError::Ipv6ExtHeader,
        ParseError::TruncatedUdp,
        ParseError::UdpLengthMismatch,
        ParseError::TruncatedBth,
        ParseError::BadTver,
        ParseError::ReservedOpcode,
        ParseError::TruncatedExt,
        ParseError::TooShortForIcrc,
        ParseError::BadIcrc,
    ];
    /// The 5-bit code on the RTL's `m_meta_error` port (0 = no error).
    pub fn code(self) -> u8 {
        self as u8
    }
    pub fn from_code(code: u8) -> Option<Self> {
        Self::ALL.iter().copied().find(|e| e.code() == code)
    }
    /// The JSONL name of the class.
    pub fn name(self) -> &'static str {
        match self {
            ParseError::MacError => "mac_error",
            ParseError::TruncatedEth => "truncated_eth",
            ParseError::TruncatedIp => "truncated_ip",
            ParseError::BadIpVersion => "bad_ip_version",
            ParseError::BadIhl => "bad_ihl",
            ParseError::BadIpv4Checksum => "bad_ipv4_checksum",
            ParseError::BadIpLength => "bad_ip_length",
            ParseError::IpLengthExceedsFrame => "ip_length_exceeds_frame",
            ParseError::IpFragment => "ip_fragment",
            ParseError::Ipv6ExtHeader => "ipv6_ext_header",
            ParseError::TruncatedUdp => "truncated_udp",
            ParseError::UdpLengthMismatch => "udp_length_mismatch",
            ParseError::TruncatedBth => "truncated_bth",
            ParseError::BadTver => "bad_tver",
            ParseError::ReservedOpcode => "reserved_opcode",
            ParseError::TruncatedExt => "truncated_ext",
            ParseError::TooShortForIcrc => "too_short_for_icrc",
            ParseError::BadIcrc => "bad_icrc",
        }
    }
}

/// Both enums serialize as their JSONL names, and read back from them.
macro_rules! serialize_by_name {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = String::deserialize(d)?;
                <$t>::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name() == name)
                    .ok_or_else(|| serde::de::Error::custom(format!("unknown {}: `{name}`", stringify!($t))))
            }
        }
    )*};
}
serialize_by_name!(FrameClass, ParseError);

/// Frame lengths saturate here (17 bits), above any offset an IP length
/// can reach, so saturation never changes a parse result.
pub const FRAME_LEN_MAX: u32 = 0x1_FFFF;

/// One record per frame. JSON keys are the field names (`SPEC.md`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParseRecord {
    pub class: FrameClass,
    pub error: Option<ParseError>,
    pub frame_len: u32,
    // Ethernet
    pub eth_type: Option<u16>,
    pub vlan_count: Option<u8>,
    pub vlan_pcp: Option<u8>,
    pub vlan_id: Option<u16>,
    // IP
    pub ip_version: Option<u8>,
    pub dscp: Option<u8>,
    pub ecn: Option<u8>,
    // UDP
    pub udp_sport: Option<u16>,
    pub udp_dport: Option<u16>,
    // BTH
    pub opcode: Option<u8>,
    pub se: Option<u8>,
    pub mig_req: Option<u8>,
    pub pad_cnt: Option<u8>,
    pub tver: Option<u8>,
    pub pkey: Option<u16>,
    pub fecn: Option<u8>,
    pub becn: Option<u8>,
    pub dest_qp: Option<u32>,
    pub ack_req: Option<u8>,
    pub psn: Option<u32>,
    // ICRC and payload
    pub icrc: Option<u32>,
    pub icrc_ok: Option<bool>,
    pub payload_len: Option<u16>,
    // Extension headers
    pub reth_va: Option<u64>,
    pub reth_rkey: Option<u32>,
    pub reth_dma_len: Option<u32>,
    pub aeth_syndrome: Option<u8>,
    pub aeth_msn: Option<u32>,
    pub imm_data: Option<u32>,
    pub ieth_rkey: Option<u32>,
    pub deth_qkey: Option<u32>,
    pub deth_src_qp: Option<u32>,
    pub atomic_va: Option<u64>,
    pub atomic_rkey: Option<u32>,
    pub atomic_swap_add: Option<u64>,
    pub atomic_compare: Option<u64>,
    pub atomic_ack_orig: Option<u64>,
}
