"""Standard operating procedures as real documents, for the extract_task_from_doc tests.

    python sop_documents.py DIR

Writes DIR/pump.docx (python-docx: a title, prose, two "Heading 1" sections, each a
"List Number" list with "List Bullet 2" items under it) and DIR/packing.pdf
(reportlab: a title, numbered steps and lettered sub-steps as plain paragraphs, one
long enough to wrap onto a second line). Made by libraries independent of the
product, as an engineer's word processor or PDF export would.
"""
import sys
from pathlib import Path

from docx import Document
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

out = Path(sys.argv[1])

doc = Document()
doc.add_heading("Water pump assembly", 0)
doc.add_paragraph("Revision 3, approved by quality on 2026-11-02.")
doc.add_heading("Preparation", 1)
doc.add_paragraph("Clean the bench", style="List Number")
doc.add_paragraph("Wipe the mat with alcohol", style="List Bullet 2")
doc.add_paragraph("Remove loose parts", style="List Bullet 2")
doc.add_paragraph("Collect the parts", style="List Number")
doc.add_paragraph("Pick the housing from tray A", style="List Bullet 2")
doc.add_heading("Assembly", 1)
doc.add_paragraph("Fit the housing", style="List Number")
doc.add_paragraph("Place the housing on the base", style="List Bullet 2")
doc.add_paragraph("Align the four pins", style="List Bullet 2")
doc.add_paragraph("Tighten the screws", style="List Number")
doc.add_paragraph("Torque each screw to 5 Nm", style="List Bullet 2")
doc.save(out / "pump.docx")

styles = getSampleStyleSheet()
story = [Paragraph("Packing station SOP", styles["Title"]), Spacer(1, 12)]
lines = [
    "1. Inspect the unit",
    "a) Look for scratches on the cover",
    "b) Check that the label is straight and can be read from one metre away",
    "2. Pack the unit",
    "a) Fold the box",
    "b) Insert the unit with its foam",
    "3. Seal the box",
    "a) Tape along the seam",
]
story += [Paragraph(line, styles["Normal"]) for line in lines]
# A narrow column (wide right margin), so the long sub-step wraps onto a second line.
SimpleDocTemplate(str(out / "packing.pdf"), pagesize=A4, rightMargin=300).build(story)
