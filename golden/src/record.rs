//! The parser's per-frame metadata record (`SPEC.md` "Parse record").
//!
//! A field is `Some` when its header's bytes are in the frame and every
//! outer header passed its checks; the RTL marks the same with valid bits.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::wire::PFC_PRIORITIES;

/// What the parser made of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FrameClass {
    #[default]
    Roce,
    NonRoce,
    Error,
    /// An 802.3x PAUSE or 802.1Qbb PFC frame (`SPEC.md` §3.2).
    FlowControl,
}

impl FrameClass {
    pub const ALL: [FrameClass; 4] =
        [FrameClass::Roce, FrameClass::NonRoce, FrameClass::Error, FrameClass::FlowControl];
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
            FrameClass::FlowControl => "flow_control",
        }
    }
}

/// Error classes, in priority order: when several apply, the first listed
/// wins, because the parser checks outer layers before inner ones. The MAC
/// Control classes come last but follow the Ethernet ones in priority: no
/// frame can have both them and an IP or RoCE class (the EtherType decides).
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
    /// A MAC Control frame that ends before its opcode's parameters.
    TruncatedMacControl,
    /// A MAC Control opcode other than PAUSE and PFC.
    UnknownMacControlOpcode,
}

impl ParseError {
    pub const ALL: [ParseError; 20] = [
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
        ParseError::TruncatedMacControl,
        ParseError::UnknownMacControlOpcode,
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
            ParseError::TruncatedMacControl => "truncated_mac_control",
            ParseError::UnknownMacControlOpcode => "unknown_mac_control_opcode",
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
    pub eth_dst: Option<MacAddr>,
    pub eth_src: Option<MacAddr>,
    // IP
    pub ip_version: Option<u8>,
    pub dscp: Option<u8>,
    pub ecn: Option<u8>,
    /// IPv4 or IPv6 by the EtherType (a bad version nibble does not change it).
    pub ip_src: Option<IpAddr>,
    pub ip_dst: Option<IpAddr>,
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
    /// The MetaRoCE CE extent of a CNP whose reserved bytes carry the tag
    /// (`SPEC.md` §6.3), Q1.15.
    pub cnp_extent: Option<u16>,
    /// The fair share of a MetaRoCE v2 CNP (`SPEC.md` §6.9). Left out of
    /// the JSON when absent, so that records of other frames keep their form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnp_share: Option<crate::wire::FairShare>,
    /// The MetaRoCE selective-ACK extension of an RC ACKNOWLEDGE whose
    /// payload starts with its tag and version (`SPEC.md` §6.10). Left out
    /// of the JSON when absent, as `cnp_share`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<crate::wire::SackRepr>,
    // MAC Control (PAUSE and PFC)
    /// The MAC Control opcode, when the frame holds its opcode's parameters.
    pub mac_control_opcode: Option<u16>,
    /// A PAUSE frame's pause time, in quanta of 512 bit times.
    pub pause_time: Option<u16>,
    /// A PFC frame's class-enable vector: bit p enables priority p (the top
    /// byte is reserved and reported as it is).
    pub pfc_enable: Option<u16>,
    /// A PFC frame's pause time per priority, priority 0 first, in quanta.
    pub pfc_quanta: Option<[u16; PFC_PRIORITIES]>,
}

/// A MAC address; JSON `"aa:bb:cc:dd:ee:ff"`, as tshark prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// From the 48-bit value with the first wire byte most significant.
    pub fn from_u64(v: u64) -> Self {
        let b = v.to_be_bytes();
        MacAddr([b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

impl std::fmt::Display for MacAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [a, b, c, d, e, g] = self.0;
        write!(f, "{a:02x}:{b:02x}:{c:02x}:{d:02x}:{e:02x}:{g:02x}")
    }
}

impl std::str::FromStr for MacAddr {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let mut mac = [0u8; 6];
        let mut parts = text.split(':');
        for byte in &mut mac {
            *byte = parts.next().and_then(|p| u8::from_str_radix(p, 16).ok()).ok_or_else(|| bad_mac(text))?;
        }
        if parts.next().is_some() {
            return Err(bad_mac(text));
        }
        Ok(MacAddr(mac))
    }
}

fn bad_mac(text: &str) -> String {
    format!("{text:?} is not a MAC address (aa:bb:cc:dd:ee:ff)")
}

impl Serialize for MacAddr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MacAddr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}
