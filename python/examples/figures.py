"""The README's Python figures, from the real data sets in ../shared/data:

    PYTHONPATH=build/python /usr/bin/python3 python/examples/figures.py ../shared/data docs

writes docs/python_pca.png (HapMap3 PCs coloured by population) and docs/python_grm.png (their
GRM, a subset ordered by population); with --all also LD decay, Manhattan and QQ of the mice's
BMI (the association run by the command line) into the same folder.
"""
import subprocess
import sys
from pathlib import Path

import numpy as np

import panoramix as pmx


def populations(table: Path, iids) -> list:
    pops = {}
    for line in table.read_text().splitlines()[1:]:
        f = line.split()
        if len(f) >= 7:
            pops[f[1]] = f[6]
    return [pops.get(i, "unknown") for i in iids]


def main(shared: Path, out: Path, everything: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    hm3 = shared / "hapmap3_1kg_flashpca" / "HM3_thinned_autosomal_overlap"
    g = pmx.Genotypes.open(hm3)
    pops = populations(hm3.parent / "relationships_w_pops_121708.txt", g.samples.iid)
    vals, vecs = pmx.pca(g, pcs=10)
    pmx.plot.pca(vals, vecs, groups=pops, title="HapMap3, 957 founders x 14,079 SNPs").savefig(out / "python_pca.png")
    G = pmx.grm(g)
    pmx.plot.grm(G, groups=pops, subset=300, title="HapMap3 GRM (300 samples by population)").savefig(
        out / "python_grm.png")
    if not everything:
        return
    R = pmx.ld(g, variants=slice(0, 1500))
    v = g.variants[:1500]
    pmx.plot.ld_decay(R, v.pos, v.chrom, max_distance=2_000_000, bins=40, title="HapMap3 LD decay").savefig(
        out / "python_ld_decay.png")
    mice = shared / "bglr_mice"
    rows = [[x.strip('"') for x in l.split(",")] for l in (mice / "mice_pheno.csv").read_text().splitlines()]
    col = rows[0].index("Obesity.BMI")
    pheno = out / "mice_bmi.txt"
    pheno.write_text("FID IID BMI\n" + "".join(f"{r[0]} {r[0]} {r[col]}\n" for r in rows[1:]))
    binary = Path(__file__).resolve().parents[2] / "build" / "panoramix"
    subprocess.run([str(binary), "assoc", "--bfile", str(mice / "mice"),
                    "--pheno", str(pheno), "--glm", "--out", str(out / "mice")], check=True, capture_output=True)
    table = out / "mice.BMI.glm.linear"
    pmx.plot.manhattan(table, suggestive=1e-5, title="mice BMI (assoc --glm)").savefig(out / "python_manhattan.png")
    pmx.plot.qq(table, title="mice BMI").savefig(out / "python_qq.png")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), "--all" in sys.argv)
