#!/usr/bin/env python3
"""The deepest LUT path between registers of a flattened Xilinx netlist.

Reads a Yosys JSON netlist (`synth_xilinx; flatten; write_json`) and prints
`LEVELS FROM TO`: the most LUTs on one combinational path from a register,
RAM, DSP or input port to a register, RAM, DSP or output port, and where the
path starts and ends. A LUT (and a LUT RAM's or shift register's read) counts
one level; MUXF7/MUXF8 and CARRY4 pass a path on without a level of their own
(they sit in the slice behind its LUTs), and so do I/O buffers. DSP48E1 and block RAM bound a path
as registers do. Used by ci/synth-report.sh: Yosys `ltp` counts every cell,
so a carry chain of 16 CARRY4 would read as 16 levels.
"""
import json
import sys

# Combinational cells: level weight, and the inputs that are not on a
# combinational path (clock, write side of a LUT RAM or shift register).
PASS = {"MUXF7", "MUXF8", "MUXF9", "CARRY4", "CARRY8", "IBUF", "OBUF", "OBUFT", "BUFG", "BUFGCTRL"}
WRITE_SIDE = {"CLK", "WCLK", "WE", "D", "DI", "DIA", "DIB", "DIC", "DID", "CE"}


def comb(cell_type):
    """Level weight of a combinational cell type, None for a boundary."""
    if cell_type in PASS:
        return 0
    if cell_type.startswith(("LUT", "INV", "RAM32", "RAM64", "RAM128", "RAM256", "SRL")):
        return 1
    if cell_type.startswith("$"):  # a generic cell left unmapped
        return 1
    return None


def main(path):
    design = json.load(open(path))
    top = next(m for m in design["modules"].values() if m.get("attributes", {}).get("top"))
    names = {}  # a bit's net name, public names first
    for name, net in sorted(top["netnames"].items(), key=lambda item: item[1].get("hide_name", 0)):
        for i, bit in enumerate(net["bits"]):
            if isinstance(bit, int) and bit not in names:
                names[bit] = name if len(net["bits"]) == 1 else f"{name}[{i}]"
    def label(cname, cell, dirs):
        """A register's name: its output's net (the cell's own name is Yosys's)."""
        outs = [b for p, bits in cell["connections"].items() if dirs.get(p) == "output" for b in bits]
        name = names.get(outs[0], "$") if outs else "$"
        return cname if name.startswith("$") else f"{name} ({cell['type']})"

    # driver[bit] = (cell name, weight, input bits) for combinational drivers.
    driver = {}
    sinks = []  # (bit, where): inputs of boundaries and output ports
    for cname, cell in top["cells"].items():
        weight = comb(cell["type"])
        dirs = cell.get("port_directions", {})
        ins = [b for p, bits in cell["connections"].items() if dirs.get(p) == "input" and p not in WRITE_SIDE
               for b in bits if isinstance(b, int)]
        for port, bits in cell["connections"].items():
            for b in bits:
                if not isinstance(b, int):
                    continue
                if dirs.get(port) == "output" and weight is not None:
                    driver[b] = (cname, weight, ins)
                elif dirs.get(port) == "input" and weight is None:
                    sinks.append((b, f"{label(cname, cell, dirs)}.{port}"))
    for pname, port in top["ports"].items():
        if port["direction"] == "output":
            sinks += [(b, pname) for b in port["bits"] if isinstance(b, int)]

    depth, origin = {}, {}  # a bit's LUT levels and the bit its path starts at

    def solve(bit):
        stack, open_bits = [bit], set()
        while stack:
            b = stack[-1]
            if b in depth:
                stack.pop()
                continue
            _, weight, ins = driver.get(b, (None, 0, []))
            todo = [i for i in ins if i not in depth and i not in open_bits]
            if todo and b not in open_bits:
                open_bits.add(b)
                stack.extend(todo)
                continue
            # Inputs still open here close a loop (`check -assert` refuses those).
            known = [i for i in ins if i in depth]
            best = max(known, key=lambda i: depth[i], default=None)
            depth[b] = weight + (depth[best] if best is not None else 0)
            origin[b] = origin[best] if best is not None else b
            open_bits.discard(b)
            stack.pop()

    levels, start, end = 0, "-", "-"
    for bit, where in sinks:
        solve(bit)
        if depth[bit] > levels:
            levels, start, end = depth[bit], names.get(origin[bit], str(origin[bit])), where
    print(levels, start, end)


if __name__ == "__main__":
    main(sys.argv[1])
