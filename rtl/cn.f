// Sources of the congestion-notification block, top first, from the workspace root:
// `verilator -f` and `iverilog -f` take the list whole; the readers that take
// files only (Yosys read_verilog, ci/*.sh, build.rs) skip the `+` lines.
+incdir+rtl
rtl/roce_cn.v
rtl/cnp_notify.v
rtl/roce_responder.v
rtl/roce_requester.v
rtl/roce_reply_frame.v
rtl/reply_req_queue.v
rtl/roce_skid.v
rtl/dcqcn_rp.v
rtl/rp_catch_up_chunk.v
rtl/stream_fifo.v
rtl/qp_rmw_pipe.v
rtl/qp_state_ram.v
rtl/crc32_lfsr.v
