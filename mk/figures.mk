# `make figures`: regenerates plots/ with bin/sim and gnuplot (scripts/figures.sh, docs/outputs.md):
# Gantt charts after the DASH paper's Figures 2, 3a, 3b, 4, 6 and 7, and every policy's makespan over n.
figures: $(BIN)/sim
	$(Q)scripts/figures.sh $(BIN)/sim plots
