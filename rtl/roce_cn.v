// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * Congestion-notification block (SPEC.md §6): one event input feeding the
 * notification point (received data: CNPs out) and the reaction point
 * (received CNPs and sent bytes: rate changes out). The two outputs are
 * independent streams, each in its own order.
 *
 * | port              | width      | meaning                                       |
 * |-------------------|------------|-----------------------------------------------|
 * | s_evt_kind        | 2          | 0 received data, 1 received CNP, 2 sent data   |
 * | s_evt_*           |            | the event fields (cnp_notify.v, dcqcn_rp.v)    |
 * | s_qpctx_*         |            | QP context table writes (cnp_notify.v)         |
 * | cfg               | CFG_WIDTH  | registers (rtl/metaroce_cfg.vh), held constant |
 * | m_axis_*          | DATA_WIDTH | CNP frames, m_axis_tuser = emit tick           |
 * | m_rate_*          |            | rate changes, sent packets handed on (dcqcn_rp) |
 * | busy              | 1          | either point still holds work (drain status)   |
 */
module roce_cn #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter QP_COUNT = 1024,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [`CFG_WIDTH-1:0]  cfg,

    input  wire                   s_qpctx_valid,
    output wire                   s_qpctx_ready,
    input  wire [23:0]            s_qpctx_local,
    input  wire [23:0]            s_qpctx_remote,

    input  wire                   s_evt_valid,
    output wire                   s_evt_ready,
    input  wire [1:0]             s_evt_kind,
    input  wire [63:0]            s_evt_time,
    input  wire [23:0]            s_evt_qp,
    input  wire                   s_evt_ce,
    input  wire [16:0]            s_evt_len,
    input  wire                   s_evt_ipv6,
    input  wire                   s_evt_vlan_valid,
    input  wire [11:0]            s_evt_vlan_id,
    input  wire [47:0]            s_evt_eth_dst,
    input  wire [47:0]            s_evt_eth_src,
    input  wire [127:0]           s_evt_ip_src,
    input  wire [127:0]           s_evt_ip_dst,
    input  wire [15:0]            s_evt_udp_sport,
    input  wire                   s_evt_src_qp_valid,
    input  wire [23:0]            s_evt_src_qp,
    input  wire                   s_evt_extent_valid,
    input  wire [15:0]            s_evt_extent,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser,

    output wire                   m_rate_valid,
    input  wire                   m_rate_ready,
    output wire [63:0]            m_rate_time,
    output wire [23:0]            m_rate_qp,
    output wire [31:0]            m_rate_rate,
    output wire [31:0]            m_rate_target,
    output wire [15:0]            m_rate_alpha,
    output wire [1:0]             m_rate_stage,
    output wire [1:0]             m_rate_trigger,
    output wire                   m_rate_sent,
    output wire [16:0]            m_rate_len,

    output wire                   busy
);

`include "metaroce_defs.vh"

wire to_np = s_evt_kind == KIND_RX_DATA;
wire to_rp = s_evt_kind == KIND_RX_CNP || s_evt_kind == KIND_TX_DATA;
wire np_ready;
wire rp_ready;
wire np_busy;
wire rp_busy;

assign busy = np_busy || rp_busy;

// An unknown kind is taken and dropped.
assign s_evt_ready = to_np ? np_ready : (to_rp ? rp_ready : 1'b1);

cnp_notify #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .QP_COUNT(QP_COUNT),
    .ROCE_UDP_PORT(ROCE_UDP_PORT)
) np_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_qpctx_valid(s_qpctx_valid),
    .s_qpctx_ready(s_qpctx_ready),
    .s_qpctx_local(s_qpctx_local),
    .s_qpctx_remote(s_qpctx_remote),
    .s_evt_valid(s_evt_valid && to_np),
    .s_evt_ready(np_ready),
    .s_evt_time(s_evt_time),
    .s_evt_qp(s_evt_qp),
    .s_evt_ce(s_evt_ce),
    .s_evt_ipv6(s_evt_ipv6),
    .s_evt_vlan_valid(s_evt_vlan_valid),
    .s_evt_vlan_id(s_evt_vlan_id),
    .s_evt_eth_dst(s_evt_eth_dst),
    .s_evt_eth_src(s_evt_eth_src),
    .s_evt_ip_src(s_evt_ip_src),
    .s_evt_ip_dst(s_evt_ip_dst),
    .s_evt_udp_sport(s_evt_udp_sport),
    .s_evt_src_qp_valid(s_evt_src_qp_valid),
    .s_evt_src_qp(s_evt_src_qp),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .busy(np_busy)
);

dcqcn_rp #(
    .QP_COUNT(QP_COUNT)
) rp_inst (
    .clk(clk),
    .rst(rst),
    .cfg(cfg),
    .s_evt_valid(s_evt_valid && to_rp),
    .s_evt_ready(rp_ready),
    .s_evt_time(s_evt_time),
    .s_evt_cnp(s_evt_kind == KIND_RX_CNP),
    .s_evt_qp(s_evt_qp),
    .s_evt_len(s_evt_len),
    .s_evt_extent_valid(s_evt_extent_valid),
    .s_evt_extent(s_evt_extent),
    .m_rate_valid(m_rate_valid),
    .m_rate_ready(m_rate_ready),
    .m_rate_time(m_rate_time),
    .m_rate_qp(m_rate_qp),
    .m_rate_rate(m_rate_rate),
    .m_rate_target(m_rate_target),
    .m_rate_alpha(m_rate_alpha),
    .m_rate_stage(m_rate_stage),
    .m_rate_trigger(m_rate_trigger),
    .m_rate_sent(m_rate_sent),
    .m_rate_len(m_rate_len),
    .busy(rp_busy)
);

`ifdef METAROCE_ASSERTIONS
import "DPI-C" function void metaroce_assertion_failed(input string message);
// Ticks never go backwards (SPEC.md §2); both points rely on it.
reg [63:0] last_time_reg = 0;
always @(posedge clk) begin
    if (!rst && s_evt_valid && s_evt_ready) begin
        last_time_reg <= s_evt_time;
        assert (s_evt_time >= last_time_reg)
        else metaroce_assertion_failed("roce_cn: event time went backwards");
    end
end
`endif

endmodule

`resetall
