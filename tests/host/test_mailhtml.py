"""The mail rendering of a report page (pbem.mailhtml): what it keeps, drops and draws."""

from __future__ import annotations

import io

from PIL import Image

from pbem import mailhtml
from pbem.mailhtml import mail_page

BOARD = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100" '
    'data-picture="Board A" aria-label="board &quot;A&quot;: 2 polyps">'
    '<rect x="10" y="10" width="80" height="80" class="sand"/>'
    '<text x="100" y="60" font-size="30">{text}</text></svg>'
)
PAGE = (
    "<html><head><style>.sand {{ fill: #e9d8a6 }} p.x {{ color: #123456 }}</style>"
    "<style data-web>.row {{ display: flex }}</style></head><body>"
    '<p class="x">words</p><div class="row">{board}'
    '<svg width="10" height="10" aria-hidden="true"><circle r="4"/></svg> 2 orange</div></body></html>'
)


def page(text: str = "Ab") -> str:
    return PAGE.format(board=BOARD.format(text=text))


def test_a_board_becomes_a_picture_and_an_icon_goes() -> None:
    mail = mail_page(page())
    assert "<svg" not in mail.html and "<style" not in mail.html
    [picture] = mail.pictures
    assert picture.filename == "board-a.png" and picture.cid.startswith("board-a-")
    assert f'<img src="cid:{picture.cid}" alt="board &quot;A&quot;: 2 polyps" width="200" height="100"' in (
        mail.html
    )
    assert "2 orange" in mail.html  # the words beside the dropped icon stay


def test_the_page_css_is_inlined_and_the_web_only_css_dropped() -> None:
    html = mail_page(page()).html
    assert 'style="color: #123456' in html or 'style="color:#123456' in html
    assert "flex" not in html


def test_a_picture_has_twice_the_pixels_it_is_shown_at_and_the_page_css() -> None:
    [picture] = mail_page(page()).pictures
    with Image.open(io.BytesIO(picture.png)) as image:
        assert image.size == (400, 200)
        rgb = image.convert("RGB")
        assert rgb.getpixel((100, 100)) == (0xE9, 0xD8, 0xA6)  # the class's fill from the page's <style>


def test_chinese_text_is_drawn_with_a_font_that_has_it() -> None:
    assert len(mailhtml._fonts(True)) > len(mailhtml._fonts(False))

    def drawn(text: str) -> bytes:
        [picture] = mail_page(page(text)).pictures
        with Image.open(io.BytesIO(picture.png)) as image:
            return image.convert("L").crop((200, 40, 400, 160)).tobytes()

    # without a font that has them, every character is the same empty box: two texts would look alike
    assert drawn("波罗") != drawn("的海")
    assert min(drawn("波罗")) < 100  # and there is ink


def test_the_same_page_draws_the_same_bytes() -> None:
    first = mail_page(page())
    mail_page.cache_clear()
    mailhtml._render.cache_clear()
    again = mail_page(page())
    assert again == first and again is not first
