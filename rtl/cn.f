// Sources of the congestion-notification block, top first (verilator -f / yosys read_verilog).
rtl/roce_cn.v
rtl/cnp_notify.v
rtl/dcqcn_rp.v
rtl/qp_rmw_pipe.v
rtl/qp_state_ram.v
rtl/crc32_lfsr.v
