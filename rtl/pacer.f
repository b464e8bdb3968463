// Sources of the pacer, top first (verilator -f / yosys read_verilog).
rtl/roce_pacer.v
rtl/qp_state_ram.v
