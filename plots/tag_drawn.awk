# plots/tag_drawn.awk - tags the MSA rows measured before the CSV's shape
# named its mask kind: they were measured on the drawn mask (the only one
# the programs had), so " mask=drawn" is appended to each shape without one.
# Run once over plots/data/msa.csv (idempotent: tagged rows are left as they are):
#
#   awk -f plots/tag_drawn.awk plots/data/msa.csv > msa.tagged && mv msa.tagged plots/data/msa.csv
BEGIN { FS = OFS = "," }
NR > 1 && $3 == "msa" && $4 !~ / mask=/ { $4 = $4 " mask=drawn" }
{ print }
