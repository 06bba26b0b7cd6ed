"""The command line on bad input (issue 24, item 6): every problem with the files or the options is one line on
standard error naming what to fix, with exit status 2 and no traceback; ``--na-values`` names missing-value
markers."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from pgmpy_ext.cli import main
from pgmpy_ext.datasets import make_corral


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_bad")
    X, y = make_corral()
    df = X.assign(label=y)
    df.to_csv(d / "good.csv", index=False)
    text = (d / "good.csv").read_text()
    (d / "empty.csv").write_text("")
    (d / "blank.csv").write_text("\n\n\n")
    (d / "header.csv").write_text(",".join(df.columns) + "\n")
    df.head(1).to_csv(d / "onerow.csv", index=False)
    (d / "plain.csv.gz").write_text(text)  # named .gz, not compressed
    with gzip.open(d / "zipped.csv", "wt") as f:  # compressed, named .csv
        f.write(text)
    (d / "garbage.csv").write_bytes(bytes(range(256)) * 10)
    df.to_csv(d / "semi.csv", index=False, sep=";")
    (d / "latin1.csv").write_bytes("a,b,label\n\xe9t\xe9,1,x\nhiver,2,y\n\xe9t\xe9,1,x\nhiver,2,y\n"
                                   .encode("latin-1"))
    (d / "ragged.csv").write_text("a,b,label\n1,2,x\n1,2,3,4\n2,1,y\n")
    (d / "dupcols.csv").write_text("a,a,label\n1,2,x\n2,1,y\n1,1,x\n2,2,y\n")
    df.assign(label="same").to_csv(d / "oneclass.csv", index=False)
    q = df.astype({"A0": object})
    q.loc[2, "A0"] = "?"
    q.to_csv(d / "question.csv", index=False)
    (d / "folder").mkdir()
    return d


def _run(args, capsys):
    try:
        status = main(args)
    except SystemExit as stop:  # argparse's own one-line errors (an option's value)
        status = stop.code
    return status, capsys.readouterr()


def _fit_model(files, capsys):
    out = files / "tan.bif"
    if not out.exists():
        assert _run(["fit", "--data", str(files / "good.csv"), "--target", "label", "--learner", "tan", "--output",
                     str(out), "--no-progress"], capsys)[0] == 0
    return files / "tan.json"


_DATA_CASES = [
    ("empty.csv", "is empty (0 bytes)"),
    ("blank.csv", "has no header row"),
    ("header.csv", "has a header and no data rows"),
    ("onerow.csv", "1 usable row(s)"),
    ("garbage.csv", "Check the separator"),
    ("semi.csv", "pass --sep ';'"),
    ("latin1.csv", "pass its encoding, e.g. --encoding latin-1"),
    ("ragged.csv", "every row has as many fields as the header"),
    ("dupcols.csv", "names the column(s) ['a'] more than once"),
    ("oneclass.csv", "single value 'same'"),
    ("nothere.csv", "does not exist"),
    ("folder", "is not a file"),
]


@pytest.mark.parametrize("command", ["fit", "evaluate", "cluster"])
@pytest.mark.parametrize(("name", "message"), _DATA_CASES, ids=[c[0] for c in _DATA_CASES])
def test_bad_files_are_one_line_messages(files, capsys, command, name, message):
    if command == "cluster" and name == "oneclass.csv":
        pytest.skip("clustering has no class column")
    args = {"fit": ["fit", "--target", "label", "--output", str(files / "m.bif")],
            "evaluate": ["evaluate", "--target", "label", "--learners", "nb"],
            "cluster": ["cluster", "--n-clusters", "2"]}[command]
    status, cap = _run([*args, "--data", str(files / name), "--no-progress"], capsys)
    assert status == 2
    assert "Traceback" not in cap.err
    assert len(cap.err.strip().splitlines()) == 1, cap.err
    assert message in cap.err
    assert cap.err.startswith(f"pgmpy-ext {command}: error:")


@pytest.mark.parametrize(("name", "message"), [c for c in _DATA_CASES if c[0] not in
                                                ("header.csv", "onerow.csv", "oneclass.csv")],
                         ids=[c[0] for c in _DATA_CASES if c[0] not in ("header.csv", "onerow.csv", "oneclass.csv")])
def test_bad_files_at_predict(files, capsys, name, message):
    model = _fit_model(files, capsys)
    status, cap = _run(["predict", "--model", str(model), "--data", str(files / name)], capsys)
    assert status == 2
    assert len(cap.err.strip().splitlines()) == 1, cap.err
    assert message in cap.err


@pytest.mark.parametrize("name", ["plain.csv.gz", "zipped.csv"])
def test_a_file_is_read_by_its_content_not_its_name(files, capsys, name):
    status, cap = _run(["fit", "--data", str(files / name), "--target", "label", "--learner", "nb", "--output",
                        str(files / f"{name}.bif"), "--no-progress"], capsys)
    assert status == 0, cap.err
    assert "128 rows, 6 features" in cap.out


_OPTION_CASES = [
    (["fit", "--param", "alpha=abc"], "learner TAN: alpha == 'abc', must be a finite number >= 0."),
    (["fit", "--param", "bogus=1"], "--param 'bogus' is not an option of TANClassifier"),
    (["fit", "--param", "alpha"], "must look like NAME=VALUE"),
    (["fit", "--learner", "kdb", "--param", "k=2.5"], "learner KDB: k == 2.5, must be an int >= 0."),
    (["fit", "--alpha", "nan"], "alpha == nan, must be a finite number >= 0."),
    (["fit", "--learner", "nb-tm", "--alpha", "-1"], "alpha == -1.0, must be >= 0."),
    (["fit", "--n-jobs", "0"], "argument --n-jobs: 0 workers cannot run anything"),
    (["fit", "--seed", "-1"], "argument --seed/--random-state: -1 is below 0"),
    (["fit", "--bins", "0"], "argument --bins: 0 is below 2"),
    (["fit", "--learner", "bogus"], "unknown learner 'bogus'"),
    (["fit", "--target", "nope"], "--target 'nope' is not a column"),
    (["fit", "--plot", "x.bogus"], "matplotlib cannot write 'bogus'"),
    (["evaluate", "--alpha", "-1"], "learner NB: alpha == -1.0, must be >= 0."),
    (["evaluate", "--seed", "-3"], "argument --seed: -3 is below 0"),
    (["evaluate", "--plot", "x.bogus"], "matplotlib cannot write 'bogus'"),
    (["evaluate", "--folds", "1"], "n_splits == 1, must be >= 2."),
    (["evaluate", "--learners", "abn", "--na-values", "?"], "--dropna drops the rows with a missing value"),
    (["cluster", "--n-clusters", "0"], "n_clusters == 0, must be >= 1."),
    (["cluster", "--alpha", "nan"], "alpha == nan, must be a finite number >= 0."),
    (["cluster", "--random-state", "-1"], "-1 is below 0"),
    (["cluster", "--na-values", "?"], "--dropna drops the incomplete rows, or --method em / ema"),
]


@pytest.mark.parametrize(("extra", "message"), _OPTION_CASES, ids=[" ".join(c[0]) for c in _OPTION_CASES])
def test_bad_options_are_one_line_messages(files, capsys, extra, message):
    command, *rest = extra
    data = "question.csv" if "--na-values" in rest else "good.csv"
    base = {"fit": ["--target", "label", "--learner", "tan", "--output", str(files / "o.bif")],
            "evaluate": ["--target", "label", "--learners", "nb", "--folds", "3"],
            "cluster": ["--n-clusters", "2", "--n-init", "1"]}[command]
    args = [command, "--data", str(files / data), "--no-progress", *base, *rest]
    status, cap = _run(args, capsys)
    assert status == 2
    assert "Traceback" not in cap.err
    # cluster prints its header lines ('# ...') to standard error when the labels go to standard output
    errors = [line for line in cap.err.strip().splitlines() if not line.startswith("# ")]
    assert len(errors) == 1, cap.err
    assert message in errors[0]


def test_bad_model_files_at_predict(files, capsys):
    model = _fit_model(files, capsys)
    data = str(files / "good.csv")
    (files / "nokeys.json").write_text(json.dumps({"format": "pgmpy-ext-model"}))
    (files / "notjson.json").write_text("garbage")
    (files / "empty.bif").write_text("garbage")
    for args, message in [
        (["--model", str(files / "nokeys.json")], "lacks ['network', 'class_node']"),
        (["--model", str(files / "notjson.json")], "is not a JSON file"),
        (["--model", str(files / "empty.bif"), "--target", "label"], "holds no network"),
        (["--model", str(files / "good.csv")], "must end in .bif"),
        (["--model", str(model), "--index-col", "nope"], "--index-col 'nope' is not a column"),
        (["--model", str(model), "--data", str(files / "question.csv"), "--handle-unknown", "error"],
         "name it with --na-values"),
    ]:
        status, cap = _run(["predict", "--data", data, *args], capsys)
        assert status == 2, args
        errors = [line for line in cap.err.strip().splitlines() if not line.startswith("# warning: ")]
        assert len(errors) == 1, cap.err
        assert message in errors[0]


def test_na_values_name_the_missing_value_markers(files, capsys, tmp_path):
    model = _fit_model(files, capsys)
    q = str(files / "question.csv")
    # without the marker, '?' is a value: the column is read as text and its cells are unseen at predict
    status, cap = _run(["predict", "--model", str(model), "--data", q], capsys)
    assert status == 0
    assert "values not seen during fit, summed out as missing: A0 (128)" in cap.err
    # with it, the '?' cell is missing and the rest of the column reads as the integers seen at fit
    status, cap = _run(["predict", "--model", str(model), "--data", q, "--na-values", "?"], capsys)
    assert status == 0
    assert "values not seen" not in cap.err
    assert "1 missing cell(s) summed out exactly (in 1 rows)" in cap.err
    # the same at fit: '?' is missing, not a third state of A0
    status, cap = _run(["fit", "--data", q, "--target", "label", "--learner", "nb", "--output",
                        str(tmp_path / "nb.bif"), "--na-values=-,?", "--no-progress"], capsys)
    assert status == 0, cap.err
    assert "A0 (2)" in cap.out
    # --no-default-na: only the listed markers are missing ('NA' is then a value)
    df = pd.DataFrame({"region": ["NA", "EU", "NA", "EU"] * 10, "label": list("ab") * 20})
    df.to_csv(tmp_path / "regions.csv", index=False)
    args = ["fit", "--data", str(tmp_path / "regions.csv"), "--target", "label", "--learner", "nb", "--output",
            str(tmp_path / "r.bif"), "--no-progress"]
    status, cap = _run(args, capsys)
    assert status == 0
    assert "region (1)" in cap.out  # pandas' default: 'NA' is missing
    status, cap = _run([*args, "--no-default-na"], capsys)
    assert status == 0
    assert "region (2)" in cap.out
    assert np.all(pd.read_csv(tmp_path / "regions.csv", keep_default_na=False)["region"].isin(["NA", "EU"]))


def test_help_documents_na_values(capsys):
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for option in ("--na-values MARKERS", "--no-default-na", "--encoding", "UCI files write '?'"):
        assert option in out


# ---------------------------------------------------------------------------------------------- real files
@pytest.fixture(scope="module")
def real(shared_datasets, tmp_path_factory):
    """Files a user would have, made from the shared UCI and microarray sets: a UCI-style '?' marker among numbers,
    a frame written with its index, a ';'-separated file with a decimal comma, a class with missing labels."""
    d = tmp_path_factory.mktemp("cli_real")
    crx = pd.read_csv(shared_datasets / "uci" / "crx.tsv.gz", sep="\t")
    q = crx.astype({"A1": object})
    q.loc[[3, 10, 50], "A1"] = "?"
    q.to_csv(d / "crx_question.csv", index=False)
    s = crx.astype({"A3": object})
    s.loc[5, "A3"] = "1,5"
    s.to_csv(d / "crx_semicolon.csv", index=False, sep=";")
    vote = pd.read_csv(shared_datasets / "uci" / "vote.tsv.gz", sep="\t")
    vote.to_csv(d / "vote_with_index.csv")
    v = vote.astype({"target": object})
    v.loc[[4, 9], "target"] = np.nan
    v.to_csv(d / "vote_no_class.csv", index=False)
    return d, shared_datasets


def test_real_question_marks_are_named_not_learnt_silently(real, capsys, tmp_path):
    d, _ = real
    args = ["fit", "--data", str(d / "crx_question.csv"), "--target", "target", "--learner", "nb", "--output",
            str(tmp_path / "nb.bif"), "--no-progress"]
    status, cap = _run(args, capsys)
    assert status == 0, cap.err
    assert ("# warning: column 'A1' holds numbers and the text '?' (3 row(s), first at row 3): the column is read "
            "as text categories with '?' a state of its own; if it marks a missing value, pass --na-values '?'."
            ) in cap.err
    assert "A1 (4)" in cap.out  # '?' is a state, as the warning says
    status, cap = _run([*args, "--na-values", "?"], capsys)
    assert status == 0, cap.err
    assert "warning" not in cap.err
    assert "A1 (3)" in cap.out  # the three '?' cells are missing: A1 keeps its three integer states


def test_real_file_with_another_separator_and_a_decimal_comma(real, capsys, tmp_path):
    d, _ = real
    args = ["fit", "--data", str(d / "crx_semicolon.csv"), "--target", "target", "--learner", "nb", "--output",
            str(tmp_path / "nb.bif"), "--no-progress"]
    status, cap = _run(args, capsys)
    assert status == 2
    assert len(cap.err.strip().splitlines()) == 1, cap.err
    assert "The header line holds no comma but ';': pass --sep ';'." in cap.err
    status, cap = _run([*args, "--sep", ";"], capsys)
    assert status == 0, cap.err
    # '1,5' is not a number with --sep ';': the warning names the cell rather than letting A3 silently become text
    assert "column 'A3' holds numbers and the text '1,5' (1 row(s), first at row 5)" in cap.err


def test_real_file_written_with_its_index(real, capsys, tmp_path):
    d, _ = real
    args = ["fit", "--data", str(d / "vote_with_index.csv"), "--target", "target", "--learner", "nb", "--output",
            str(tmp_path / "nb.bif"), "--no-progress"]
    status, cap = _run(args, capsys)
    assert status == 2
    assert ("column 1 has no name in the header (pandas reads it as 'Unnamed: 0'); name it, or pass --index-col "
            "'Unnamed: 0' if it holds the row labels") in cap.err
    status, cap = _run([*args, "--index-col", "Unnamed: 0"], capsys)
    assert status == 0, cap.err
    assert "435 rows, 16 features" in cap.out  # the row numbers are not a feature
    status, cap = _run([*args, "--index-col", "nope"], capsys)
    assert status == 2
    assert "--index-col 'nope' is not a column" in cap.err


def test_real_wide_file_wrong_target_is_one_short_line(real, capsys, tmp_path):
    _, shared = real
    status, cap = _run(["fit", "--data", str(shared / "microarray" / "leukemia.csv.gz"), "--target", "CLASS",
                        "--learner", "nb", "--output", str(tmp_path / "nb.bif"), "--no-progress"], capsys)
    assert status == 2
    assert len(cap.err.strip().splitlines()) == 1
    assert len(cap.err) < 1000  # 5,147 columns are not all listed
    assert "... and 5136 more]). Did you mean 'class'?" in cap.err


def test_real_rows_keep_their_labels(real, capsys, tmp_path):
    d, _ = real
    status, cap = _run(["fit", "--data", str(d / "vote_no_class.csv"), "--target", "target", "--learner", "nb",
                        "--output", str(tmp_path / "nb.bif"), "--no-progress"], capsys)
    assert status == 2
    assert "2 row(s) have a missing class label (first: row 4); pass --dropna" in cap.err
    # cluster --dropna: the labels of the kept rows are the file's row numbers (row 4 is absent, not renumbered)
    out = tmp_path / "labels.csv"
    status, cap = _run(["cluster", "--data", str(d / "vote_no_class.csv"), "--n-clusters", "2", "--n-init", "1",
                        "--dropna", "--output", str(out), "--no-progress"], capsys)
    assert status == 0, cap.err
    labels = pd.read_csv(out, index_col=0)
    assert 4 not in labels.index
    assert 9 not in labels.index
    assert list(labels.index[:5]) == [0, 1, 2, 3, 5]
    # predict --index-col: messages name the user's label as the file writes it
    model = tmp_path / "nb.json"
    assert _run(["fit", "--data", str(d / "vote_with_index.csv"), "--index-col", "Unnamed: 0", "--target", "target",
                 "--learner", "nb", "--output", str(tmp_path / "nb.bif"), "--no-progress"], capsys)[0] == 0
    bad = pd.read_csv(d / "vote_with_index.csv", index_col=0)
    bad.index = bad.index + 1000
    bad.loc[1007, "crime"] = 7
    bad.to_csv(tmp_path / "bad.csv")
    status, cap = _run(["predict", "--model", str(model), "--data", str(tmp_path / "bad.csv"), "--index-col",
                        "Unnamed: 0", "--handle-unknown", "error"], capsys)
    assert status == 2
    assert "column 'crime' has value 7 at row 1007 that was not seen during fit" in cap.err
