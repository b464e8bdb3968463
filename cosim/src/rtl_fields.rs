// The parser record as the RTL drives it: `m_meta_<name>` ports of
// rtl/roce_parser.v, in port order. build.rs generates the C++ copy code and
// the `#[repr(C)]` Rust struct from this one table, so a port renamed in the
// RTL fails the build instead of reading garbage. Ports of up to 64 bits
// become one `u64`; the 128-bit ones of PARSER_WIDE_FIELDS become
// `<name>_hi` and `<name>_lo`.
pub const PARSER_RECORD_FIELDS: &[&str] = &[
    "frame_class", "error", "frame_len",
    "eth_valid", "vlan_count", "vlan_pcp", "vlan_id", "eth_type", "eth_dst", "eth_src",
    "ip_valid", "ip_version", "dscp", "ecn", "ip_src", "ip_dst",
    "udp_valid", "udp_sport", "udp_dport",
    "bth_valid", "opcode", "se", "mig_req", "pad_cnt", "tver", "pkey", "fecn", "becn", "dest_qp", "ack_req", "psn",
    "icrc_valid", "icrc", "icrc_ok", "payload_len",
    "reth_valid", "reth_va", "reth_rkey", "reth_dma_len",
    "aeth_valid", "aeth_syndrome", "aeth_msn",
    "imm_valid", "imm_data",
    "ieth_valid", "ieth_rkey",
    "deth_valid", "deth_qkey", "deth_src_qp",
    "atomic_valid", "atomic_va", "atomic_rkey", "atomic_swap_add", "atomic_compare",
    "atomic_ack_valid", "atomic_ack_orig",
    "cnp_valid", "cnp_extent", "cnp_v2", "cnp_flags", "cnp_share", "cnp_active", "cnp_seq",
    "sack_valid", "sack_beyond", "sack_bitmap",
    "mac_control_valid", "mac_control_opcode", "pause_valid", "pause_time", "pfc_valid", "pfc_enable", "pfc_quanta",
];

pub const PARSER_WIDE_FIELDS: &[&str] = &["ip_src", "ip_dst", "pfc_quanta"];
