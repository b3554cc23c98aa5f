"""Write the bundled NER sample (sentences written by the benchcheck authors, CC0).

Inline markup ``[TYPE words]`` becomes IOB2 tags. The sample plants what the audit should
find: a repeated training sentence, test sentences leaked from train, an entity value with
two types (Jordan, Washington), sentences without entities, and test entities unseen in train.
Run: python scripts/make_ner_sample.py
"""

import re
from pathlib import Path

TRAIN = """
[PER Angela Merkel] met [ORG Siemens] managers in [LOC Munich] on Monday .
The [ORG European Commission] fined [ORG Google] again .
[PER Michael Jordan] played for the [ORG Chicago Bulls] for many years .
Rain is expected across [LOC Jordan] and [LOC Syria] this week .
Shares of [ORG Toyota] rose two percent in [LOC Tokyo] .
Nobody answered the phone .
[PER Maria Santos] won the [MISC Boston Marathon] in record time .
[LOC Washington] announced new tariffs on steel .
[PER George Washington] was the first president of the [LOC United States] .
The [ORG United Nations] opened a new office in [LOC Nairobi] .
The weather was cold and grey .
[PER Lionel Messi] scored twice against [ORG Real Madrid] .
[ORG Airbus] delivered forty planes to [ORG Lufthansa] .
[PER Angela Merkel] met [ORG Siemens] managers in [LOC Munich] on Monday .
The committee will meet again next month .
[LOC Paris] and [LOC Berlin] signed the [MISC Elysee Treaty] decades ago .
[PER Kofi Annan] spoke at the [ORG United Nations] in [LOC New York] .
Prices fell sharply after the announcement .
[ORG Reuters] reported that [PER Maria Santos] will retire .
[LOC Brazil] beat [LOC Argentina] two to one in [LOC Rio] .
[PER Washington] starred in the film that won the award .
Fans cheered when [PER Jordan] returned to the court .
""".strip().splitlines()

DEV = """
[PER Serena Williams] withdrew from the [MISC French Open] .
[ORG Volkswagen] recalled cars sold in [LOC Canada] .
The meeting ended without an agreement .
[PER Jordan] said the plan would fail .
[LOC Lagos] is the largest city in [LOC Nigeria] .
[ORG Google] opened an office in [LOC Nairobi] .
""".strip().splitlines()

TEST = """
[PER Angela Merkel] met [ORG Siemens] managers in [LOC Munich] on Monday .
[PER Ngozi Okonjo-Iweala] leads the [ORG World Trade Organization] .
[ORG Samsung] shares fell in [LOC Seoul] after the report .
Nothing happened on the market today .
[LOC Washington] and [LOC Ottawa] agreed on new rules .
[PER Kofi Annan] spoke at the [ORG United Nations] in [LOC New York] .
[PER Usain Bolt] ran in [LOC Kingston] for the last time .
[ORG Nokia] cut two thousand jobs in [LOC Finland] .
""".strip().splitlines()


def to_conll(sentence: str) -> str:
    """Convert one marked-up sentence to 'token tag' lines (IOB2)."""
    out = []
    for match in re.finditer(r"\[(\w+) ([^\]]+)\]|(\S+)", sentence):
        if match.group(3):
            out.append(f"{match.group(3)} O")
            continue
        words = match.group(2).split()
        out += [f"{w} {'B' if i == 0 else 'I'}-{match.group(1)}" for i, w in enumerate(words)]
    return "\n".join(out)


def main() -> None:
    """Write train.txt, dev.txt and test.txt beside the sample's README."""
    folder = Path(__file__).resolve().parent.parent / "src" / "benchcheck" / "sample_data" / "ner"
    for name, sentences in (("train", TRAIN), ("dev", DEV), ("test", TEST)):
        body = "-DOCSTART- O\n\n" + "\n\n".join(to_conll(s) for s in sentences) + "\n"
        (folder / f"{name}.txt").write_text(body, encoding="utf-8")


if __name__ == "__main__":
    main()
