// SPDX-License-Identifier: MIT
//
// The reply addresses: the fields of a received packet that a reply frame
// (a CNP, an ACK or a NAK) answers with, as one bus. roce_cn.v packs them
// from its event input (`REPLY_ADDR_PACK), cnp_notify.v and
// roce_responder.v carry the bus whole (in their event and request words),
// and roce_reply_frame.v alone unpacks it, by these slices.
`ifndef METAROCE_REPLY_ADDR_VH
`define METAROCE_REPLY_ADDR_VH

`define REPLY_ADDR_WIDTH 382

// IPv6 (else IPv4).
`define REPLY_ADDR_IPV6 381
// The received packet's outer VLAN tag.
`define REPLY_ADDR_VLAN_VALID 380
`define REPLY_ADDR_VLAN_ID 379:368
// Its MACs, first wire byte in the top bits.
`define REPLY_ADDR_ETH_DST 367:320
`define REPLY_ADDR_ETH_SRC 319:272
// Its IPs, first wire byte in the top bits (IPv4 in the low 32).
`define REPLY_ADDR_IP_SRC 271:144
`define REPLY_ADDR_IP_DST 143:16
// Its UDP source port, the reply's source port.
`define REPLY_ADDR_UDP_SPORT 15:0

// The bus from its fields, in the slices' order.
`define REPLY_ADDR_PACK(ipv6, vlan_valid, vlan_id, eth_dst, eth_src, ip_src, ip_dst, udp_sport) \
    {ipv6, vlan_valid, vlan_id, eth_dst, eth_src, ip_src, ip_dst, udp_sport}

`endif
