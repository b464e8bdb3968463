// Sources of the pacer, top first (verilator -f / yosys read_verilog).
rtl/roce_pacer.v
rtl/pacer_gcra.v
rtl/pacer_place.v
rtl/pacer_scan.v
rtl/pacer_ffs.v
rtl/pacer_release.v
rtl/pacer_ram.v
rtl/qp_state_ram.v
