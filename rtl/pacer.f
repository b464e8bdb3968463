// Sources of the pacer, top first, from the workspace root:
// `verilator -f` and `iverilog -f` take the list whole; the readers that take
// files only (Yosys read_verilog, ci/*.sh, build.rs) skip the `+` lines.
+incdir+rtl
rtl/roce_pacer.v
rtl/pacer_gcra.v
rtl/pacer_place.v
rtl/pacer_scan.v
rtl/pacer_ffs.v
rtl/pacer_egress.v
rtl/qp_state_ram.v
