"""Shared fixtures: the panoramix command line (the oracle of every statistic), data simulated by
it, the real data sets of ../shared/data, and a reader of a .bed in plain numpy (the oracle of the
products)."""
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("PMX_BINARY", ROOT / "build" / "panoramix"))
SHARED = Path(os.environ.get("PMX_SHARED_DATA", ROOT.parent / "shared" / "data"))
THREADS = 2  # the CLI and the module with the same threads: the same bits


def run_cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Runs `panoramix args...`; returns the completed process (stdout and stderr as text)."""
    if not BINARY.exists():
        pytest.skip(f"the panoramix binary is not built ({BINARY})")
    r = subprocess.run([str(BINARY), *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"panoramix {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r


def cli_error(*args: str) -> str:
    """The message the command line prints after 'Error: ' for a failing run."""
    r = run_cli(*args, check=False)
    assert r.returncode != 0, f"panoramix {' '.join(args)} succeeded"
    lines = [l for l in r.stderr.splitlines() if l.startswith("Error: ")]
    assert lines, r.stderr
    return lines[-1][len("Error: "):]


@pytest.fixture(scope="session")
def sim(tmp_path_factory) -> Path:
    """300 samples x 2,000 variants on 3 chromosomes, 2 % missing calls, a trait with 10 % NA;
    chromosome 3 renamed X (so that grm/pca drop it as the CLI does), a few non-founders."""
    d = tmp_path_factory.mktemp("sim")
    run_cli("simulate", "--samples", "300", "--variants", "2000", "--missing", "0.02", "--traits", "1",
            "--pheno-missing", "0.1", "--chromosomes", "3", "--seed", "7", "--out", str(d / "sim"),
            "--threads", str(THREADS))
    bim = (d / "sim.bim").read_text().splitlines()
    (d / "sim.bim").write_text("\n".join(("X" + l[1:]) if l.startswith("3\t") else l for l in bim) + "\n")
    fam = (d / "sim.fam").read_text().splitlines()
    for i in (5, 6, 7):  # children of the first two samples: not founders
        f = fam[i].split()
        f[2], f[3] = fam[0].split()[1], fam[1].split()[1]
        fam[i] = " ".join(f)
    (d / "sim.fam").write_text("\n".join(fam) + "\n")
    return d / "sim"


@pytest.fixture(scope="session")
def hapmap() -> Path:
    """HapMap3 founders (957 x 14,079) with population labels, from ../shared/data."""
    prefix = SHARED / "hapmap3_1kg_flashpca" / "HM3_thinned_autosomal_overlap"
    if not Path(str(prefix) + ".bed").exists():
        pytest.skip(f"shared data set absent: {prefix}.bed")
    return prefix


def hapmap_populations(prefix: Path, iids) -> list:
    """The population label of each IID (relationships_w_pops_121708.txt)."""
    table = prefix.parent / "relationships_w_pops_121708.txt"
    pops = {}
    for line in table.read_text().splitlines()[1:]:
        f = line.split()
        if len(f) >= 7:
            pops[f[1]] = f[6]
    return [pops.get(i, "unknown") for i in iids]


def decode_bed(prefix: Path) -> np.ndarray:
    """The .bed as an (n, m) float64 matrix of A1 counts, NaN for missing, in plain numpy:
    the 2-bit codes 00 = two copies of A1 (.bim column 5), 10 = one, 11 = none, 01 = missing."""
    n = sum(1 for _ in open(str(prefix) + ".fam"))
    m = sum(1 for _ in open(str(prefix) + ".bim"))
    raw = np.fromfile(str(prefix) + ".bed", dtype=np.uint8)
    assert raw[:3].tolist() == [0x6C, 0x1B, 0x01]
    rows = raw[3:].reshape(m, (n + 3) // 4)
    codes = np.stack([(rows >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(m, -1)[:, :n]
    value = np.array([2.0, np.nan, 1.0, 0.0])
    return value[codes].T.copy()


def read_afreq(path: Path):
    """ALT_FREQS and OBS_CT columns of a .afreq."""
    p, obs = [], []
    for line in Path(path).read_text().splitlines()[1:]:
        f = line.split("\t")
        p.append(float(f[4]))
        obs.append(int(f[5]))
    return np.array(p), np.array(obs)


def read_pheno(path: Path, column: int = 2) -> dict:
    """(FID, IID) -> value of a PLINK phenotype file with a header; NA -> NaN."""
    out = {}
    for line in Path(path).read_text().splitlines()[1:]:
        f = line.split()
        out[(f[0], f[1])] = float("nan") if f[column] in ("NA", "-9") else float(f[column])
    return out


@pytest.fixture
def workdir(tmp_path) -> Path:
    return tmp_path
