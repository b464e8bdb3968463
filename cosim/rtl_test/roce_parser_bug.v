// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * TEST ONLY, never in a real build: roce_parser with three deliberate bugs
 * on its record, the `Vparser64Bug` model the harness's own tests must
 * catch (cosim/tests/harness.rs, cosim/tests/robustness.rs). Same ports
 * and parameters as rtl/roce_parser.v, which it wraps unchanged.
 *
 *  - RC RDMA WRITE Only (0x0A): the low DestQP bit flips (a field mismatch).
 *  - RC RDMA WRITE Only with immediate (0x0B): the error code is 31, which
 *    no class has (an assertion fires).
 *  - RC RDMA READ request (0x0C): the record is taken from the parser but
 *    never offered (the harness reports the RTL stalled).
 */
module roce_parser_bug #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    output wire                   m_meta_valid,
    input  wire                   m_meta_ready,
    output wire [1:0]             m_meta_frame_class,
    output wire [4:0]             m_meta_error,
    output wire [16:0]            m_meta_frame_len,
    output wire                   m_meta_eth_valid,
    output wire [1:0]             m_meta_vlan_count,
    output wire [2:0]             m_meta_vlan_pcp,
    output wire [11:0]            m_meta_vlan_id,
    output wire [15:0]            m_meta_eth_type,
    output wire [47:0]            m_meta_eth_dst,
    output wire [47:0]            m_meta_eth_src,
    output wire                   m_meta_ip_valid,
    output wire [3:0]             m_meta_ip_version,
    output wire [5:0]             m_meta_dscp,
    output wire [1:0]             m_meta_ecn,
    output wire [127:0]           m_meta_ip_src,
    output wire [127:0]           m_meta_ip_dst,
    output wire                   m_meta_udp_valid,
    output wire [15:0]            m_meta_udp_sport,
    output wire [15:0]            m_meta_udp_dport,
    output wire                   m_meta_bth_valid,
    output wire [7:0]             m_meta_opcode,
    output wire                   m_meta_se,
    output wire                   m_meta_mig_req,
    output wire [1:0]             m_meta_pad_cnt,
    output wire [3:0]             m_meta_tver,
    output wire [15:0]            m_meta_pkey,
    output wire                   m_meta_fecn,
    output wire                   m_meta_becn,
    output wire [23:0]            m_meta_dest_qp,
    output wire                   m_meta_ack_req,
    output wire [23:0]            m_meta_psn,
    output wire                   m_meta_icrc_valid,
    output wire [31:0]            m_meta_icrc,
    output wire                   m_meta_icrc_ok,
    output wire [15:0]            m_meta_payload_len,
    output wire                   m_meta_reth_valid,
    output wire [63:0]            m_meta_reth_va,
    output wire [31:0]            m_meta_reth_rkey,
    output wire [31:0]            m_meta_reth_dma_len,
    output wire                   m_meta_aeth_valid,
    output wire [7:0]             m_meta_aeth_syndrome,
    output wire [23:0]            m_meta_aeth_msn,
    output wire                   m_meta_imm_valid,
    output wire [31:0]            m_meta_imm_data,
    output wire                   m_meta_ieth_valid,
    output wire [31:0]            m_meta_ieth_rkey,
    output wire                   m_meta_deth_valid,
    output wire [31:0]            m_meta_deth_qkey,
    output wire [23:0]            m_meta_deth_src_qp,
    output wire                   m_meta_atomic_valid,
    output wire [63:0]            m_meta_atomic_va,
    output wire [31:0]            m_meta_atomic_rkey,
    output wire [63:0]            m_meta_atomic_swap_add,
    output wire [63:0]            m_meta_atomic_compare,
    output wire                   m_meta_atomic_ack_valid,
    output wire [63:0]            m_meta_atomic_ack_orig,
    output wire                   m_meta_cnp_valid,
    output wire [15:0]            m_meta_cnp_extent
);

`include "metaroce_defs.vh"

wire        parser_valid;
wire        parser_ready;
wire [23:0] parser_dest_qp;
wire [4:0]  parser_error;

wire lost = m_meta_bth_valid && m_meta_opcode == 8'h0C;
assign m_meta_valid = parser_valid && !lost;
assign parser_ready = m_meta_ready || lost;
assign m_meta_dest_qp = parser_dest_qp ^ {23'd0, m_meta_opcode == 8'h0A};
assign m_meta_error = m_meta_opcode == 8'h0B && m_meta_bth_valid ? 5'd31 : parser_error;

roce_parser #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .ROCE_UDP_PORT(ROCE_UDP_PORT)
) parser_inst (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tuser(s_axis_tuser),
    .m_meta_valid(parser_valid),
    .m_meta_ready(parser_ready),
    .m_meta_frame_class(m_meta_frame_class),
    .m_meta_error(parser_error),
    .m_meta_frame_len(m_meta_frame_len),
    .m_meta_eth_valid(m_meta_eth_valid),
    .m_meta_vlan_count(m_meta_vlan_count),
    .m_meta_vlan_pcp(m_meta_vlan_pcp),
    .m_meta_vlan_id(m_meta_vlan_id),
    .m_meta_eth_type(m_meta_eth_type),
    .m_meta_eth_dst(m_meta_eth_dst),
    .m_meta_eth_src(m_meta_eth_src),
    .m_meta_ip_valid(m_meta_ip_valid),
    .m_meta_ip_version(m_meta_ip_version),
    .m_meta_dscp(m_meta_dscp),
    .m_meta_ecn(m_meta_ecn),
    .m_meta_ip_src(m_meta_ip_src),
    .m_meta_ip_dst(m_meta_ip_dst),
    .m_meta_udp_valid(m_meta_udp_valid),
    .m_meta_udp_sport(m_meta_udp_sport),
    .m_meta_udp_dport(m_meta_udp_dport),
    .m_meta_bth_valid(m_meta_bth_valid),
    .m_meta_opcode(m_meta_opcode),
    .m_meta_se(m_meta_se),
    .m_meta_mig_req(m_meta_mig_req),
    .m_meta_pad_cnt(m_meta_pad_cnt),
    .m_meta_tver(m_meta_tver),
    .m_meta_pkey(m_meta_pkey),
    .m_meta_fecn(m_meta_fecn),
    .m_meta_becn(m_meta_becn),
    .m_meta_dest_qp(parser_dest_qp),
    .m_meta_ack_req(m_meta_ack_req),
    .m_meta_psn(m_meta_psn),
    .m_meta_icrc_valid(m_meta_icrc_valid),
    .m_meta_icrc(m_meta_icrc),
    .m_meta_icrc_ok(m_meta_icrc_ok),
    .m_meta_payload_len(m_meta_payload_len),
    .m_meta_reth_valid(m_meta_reth_valid),
    .m_meta_reth_va(m_meta_reth_va),
    .m_meta_reth_rkey(m_meta_reth_rkey),
    .m_meta_reth_dma_len(m_meta_reth_dma_len),
    .m_meta_aeth_valid(m_meta_aeth_valid),
    .m_meta_aeth_syndrome(m_meta_aeth_syndrome),
    .m_meta_aeth_msn(m_meta_aeth_msn),
    .m_meta_imm_valid(m_meta_imm_valid),
    .m_meta_imm_data(m_meta_imm_data),
    .m_meta_ieth_valid(m_meta_ieth_valid),
    .m_meta_ieth_rkey(m_meta_ieth_rkey),
    .m_meta_deth_valid(m_meta_deth_valid),
    .m_meta_deth_qkey(m_meta_deth_qkey),
    .m_meta_deth_src_qp(m_meta_deth_src_qp),
    .m_meta_atomic_valid(m_meta_atomic_valid),
    .m_meta_atomic_va(m_meta_atomic_va),
    .m_meta_atomic_rkey(m_meta_atomic_rkey),
    .m_meta_atomic_swap_add(m_meta_atomic_swap_add),
    .m_meta_atomic_compare(m_meta_atomic_compare),
    .m_meta_atomic_ack_valid(m_meta_atomic_ack_valid),
    .m_meta_atomic_ack_orig(m_meta_atomic_ack_orig),
    .m_meta_cnp_valid(m_meta_cnp_valid),
    .m_meta_cnp_extent(m_meta_cnp_extent)
);

`ifdef METAROCE_ASSERTIONS
// The parser checks its own record; the one leaving here is checked again.
import "DPI-C" function void metaroce_assertion_failed(input string message);

always @(posedge clk) begin
    if (!rst && m_meta_valid) begin
        assert ((m_meta_error == ERR_NONE) == (m_meta_frame_class != CLASS_ERROR))
            else metaroce_assertion_failed("record: error code and class disagree");
        assert (m_meta_error <= ERR_BAD_ICRC) else metaroce_assertion_failed("record: unknown error code");
    end
end
`endif

endmodule

`resetall
