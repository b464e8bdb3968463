// Sources of the pipeline top, top first, from the workspace root:
// `verilator -f` and `iverilog -f` take the list whole; the readers that take
// files only (Yosys read_verilog, ci/*.sh, build.rs) skip the `+` lines.
+incdir+rtl
rtl/roce_pipeline.v
rtl/roce_parser.v
rtl/roce_parser_icrc.v
rtl/roce_parser_check.v
rtl/roce_classify.v
rtl/roce_skid.v
rtl/roce_opcode_decode.v
rtl/roce_cn.v
rtl/cnp_notify.v
rtl/roce_responder.v
rtl/roce_requester.v
rtl/roce_reply_frame.v
rtl/reply_req_queue.v
rtl/dcqcn_rp.v
rtl/rp_catch_up_chunk.v
rtl/stream_fifo.v
rtl/roce_pacer.v
rtl/pacer_gcra.v
rtl/pacer_place.v
rtl/pacer_scan.v
rtl/pacer_ffs.v
rtl/pacer_egress.v
rtl/qp_rmw_pipe.v
rtl/qp_state_ram.v
rtl/crc32_lfsr.v
