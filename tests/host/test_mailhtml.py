"""The mail rendering of a report page (pbem.render.mail_html): what it keeps, drops and draws."""

from __future__ import annotations

import io

from PIL import Image

from pbem.core import caches
from pbem.render import pictures
from pbem.render.mail_html import mail_page

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
    assert len(pictures._fonts(True)) > len(pictures._fonts(False))

    def drawn(text: str) -> bytes:
        [picture] = mail_page(page(text)).pictures
        with Image.open(io.BytesIO(picture.png)) as image:
            return image.convert("L").crop((200, 40, 400, 160)).tobytes()

    # without a font that has them, every character is the same empty box: two texts would look alike
    assert drawn("波罗") != drawn("的海")
    assert min(drawn("波罗")) < 100  # and there is ink


def test_the_same_page_draws_the_same_bytes() -> None:
    first = mail_page(page())
    caches.clear_all()
    again = mail_page(page())
    assert again == first and again is not first


# ------------------------------------------------------------- a drawing in layers: the board, its pieces

STYLE = ".sq { fill: #2f6fd6 } text.l { font-family: sans-serif; font-weight: bold; font-size: 12px }"


def layered(piece_fill: str = "#f08a24", label: str = "3 pieces", last: str = "") -> str:
    """A board (lines, words) with three pieces drawn last, each a data-sprite group with its box; the
    third reaches past the drawing's right edge."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="150" height="100" viewBox="0 0 150 100" '
        f'data-picture="b" aria-label="{label}">'
        '<rect width="150" height="100" fill="#9fc3cf"/>'
        '<path d="M0,0 L150,100 M0,100 L150,0" stroke="#b89d62" stroke-width="3"/>'
        '<text x="75" y="96" text-anchor="middle" class="l">board</text>'
        '<g data-sprite="9 9 32 32"><rect x="10" y="10" width="30" height="30" rx="6" '
        f'fill="{piece_fill}" stroke="#4b5563"/>'
        '<text x="25" y="29" text-anchor="middle" class="l">O</text></g>\n'
        '<g data-sprite="59.5 20.5 21 21"><circle cx="70" cy="31" r="9.5" class="sq" stroke="#fff"/></g>'
        '<g data-sprite="130 60 30 30"><circle cx="145" cy="75" r="12" fill="#d42a2a"/></g>'
        f"{last}</svg>"
    )


def pixels(png: bytes) -> Image.Image:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB")


def whole(svg: str) -> Image.Image:
    """The drawing rendered in one piece, as it was before layers (and as the web page shows it)."""
    return pixels(pictures._quantise(pictures._draw(svg, STYLE, 300, False, background="#ffffff")))


def test_a_drawing_in_layers_is_the_drawing_rendered_whole() -> None:
    from PIL import ImageChops

    caches.clear_all()
    svg = layered()
    layers = pictures.split_layers(svg)
    assert layers is not None and len(layers.sprites) == 3
    picture = pictures.picture_of(svg, STYLE, "b")
    drawn, reference = pixels(picture.png), whole(svg)
    assert drawn.size == reference.size == (300, 200)
    difference = ImageChops.difference(drawn, reference).convert("L").histogram()
    # the same picture but for the palette's rounding: no pixel off by more than a shade
    assert sum(difference[24:]) == 0, [i for i, n in enumerate(difference) if n]
    assert drawn.getpixel((50, 50)) == reference.getpixel((50, 50))  # a piece, in its colour
    assert drawn.getpixel((299, 150))[0] > 150  # the piece cut at the edge is drawn up to it


def test_outside_its_pieces_a_picture_is_its_board_exactly() -> None:
    from PIL import ImageChops, ImageDraw

    caches.clear_all()
    svg = layered()
    drawn = pixels(pictures.picture_of(svg, STYLE, "b").png)
    board = pixels(pictures._draw(svg, STYLE, 300, False, background="#ffffff"))  # not reduced
    layers = pictures.split_layers(svg)
    assert layers is not None
    for image in (drawn, board):
        for x, y, w, h in (sprite.box for sprite in layers.sprites):  # 2 px a unit
            ImageDraw.Draw(image).rectangle((2 * x - 1, 2 * y - 1, 2 * (x + w) + 1, 2 * (y + h) + 1), fill=0)
    # the board's own colours (its edges' blends too) are kept as they are, not the palette's nearest
    assert ImageChops.difference(drawn, board).getbbox() is None


def moved(places: list[tuple[int, int]], transform: str = "translate({x} {y})") -> str:
    """The board with the same piece at each of ``places``, drawn relative to its box."""
    piece = (
        '<g data-sprite="{x} {y} 32 32" transform="' + transform + '"><rect x="1" y="1" width="30" '
        'height="30" rx="6" fill="#f08a24" stroke="#4b5563"/><text x="16" y="20" text-anchor="middle" '
        'class="l">O</text></g>'
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="100" viewBox="0 0 150 100" '
        'data-picture="b"><rect width="150" height="100" fill="#9fc3cf"/>'
        '<path d="M0,0 L150,100 M0,100 L150,0" stroke="#b89d62" stroke-width="3"/>'
        + "".join(piece.format(x=x, y=y) for x, y in places)
        + "</svg>"
    )


def test_a_piece_drawn_relative_to_its_box_is_drawn_once_wherever_it_stands() -> None:
    from PIL import ImageChops

    caches.clear_all()
    svg = moved([(9, 9), (60, 40), (100, 12)])
    layers = pictures.split_layers(svg)
    assert layers is not None and [s.origin for s in layers.sprites] == [(9, 9), (60, 40), (100, 12)]
    drawn = pixels(pictures.picture_of(svg, STYLE, "b").png)
    assert pictures._sprite_image.cache_info().misses == 1  # one drawing, pasted three times
    difference = ImageChops.difference(drawn, whole(svg)).convert("L").histogram()
    assert sum(difference[24:]) == 0, [i for i, n in enumerate(difference) if n]
    assert drawn.getpixel((2 * 60 + 10, 2 * 40 + 10)) == drawn.getpixel((2 * 9 + 10, 2 * 9 + 10))
    # half a unit off the grid (a pixel at 2 px a unit) is still the same drawing; a quarter is not
    pictures.picture_of(moved([(20.5, 30)]), STYLE, "b")
    assert pictures._sprite_image.cache_info().misses == 1
    pictures.picture_of(moved([(20.25, 30)]), STYLE, "b")
    assert pictures._sprite_image.cache_info().misses == 2


def test_a_piece_turned_or_scaled_is_drawn_with_the_whole_drawing() -> None:
    assert pictures.split_layers(moved([(9, 9)], "translate({x} {y}) rotate(10)")) is None
    assert pictures.split_layers(moved([(9, 9)], "scale(2)")) is None
    assert pictures.split_layers(moved([(9, 9)], "translate({x},{y})")) is not None


def test_the_board_is_drawn_once_and_each_piece_once_across_turns() -> None:
    caches.clear_all()
    first = pictures.picture_of(layered(), STYLE, "b")
    moved = pictures.picture_of(layered(piece_fill="#f3a0bf", label="a pink piece"), STYLE, "b")
    assert pictures._static_image.cache_info().misses == 1  # the board without its pieces: once
    assert pictures._static_image.cache_info().hits == 1
    assert pictures._sprite_image.cache_info().misses == 4  # three pieces, then the one that changed
    # a piece that differs is a picture that differs: no seat is ever sent another's drawing
    assert moved.png != first.png and moved.cid != first.cid


def test_the_same_drawing_with_other_words_is_the_same_picture() -> None:
    caches.clear_all()
    one = pictures.picture_of(layered(label="3 pieces"), STYLE, "b")
    other = pictures.picture_of(layered(label="three pieces"), STYLE, "b")
    assert one.png == other.png
    caches.clear_all()
    assert pictures.picture_of(layered(label="3 pieces"), STYLE, "b").png == one.png  # and every time


def test_a_drawing_with_anything_after_its_pieces_is_drawn_whole() -> None:
    # a line over the pieces: drawing them last would put them over it
    svg = layered(last='<path d="M0,25 L150,25" stroke="#000" stroke-width="4"/>')
    assert pictures.split_layers(svg) is None
    assert pictures.split_layers(BOARD.format(text="Ab")) is None  # no pieces marked
    caches.clear_all()
    drawn = pixels(pictures.picture_of(svg, STYLE, "b").png)
    assert drawn.getpixel((50, 50)) == (0, 0, 0)  # the line over the first piece
    assert pictures._static_image.cache_info().misses == 0


def test_an_icon_on_a_line_of_its_own_leaves_no_empty_line() -> None:
    icon = '<svg width="10" height="10" aria-hidden="true"><circle r="4"/></svg>'
    mail = mail_page(
        f"<html><body><h3>white space</h3>{icon}<br>larva cube: yes {icon} 2 orange</body></html>"
    )
    assert "<h3>white space</h3>larva cube: yes  2 orange" in mail.html
    kept = mail_page(f"<html><body><p>a{icon} b<br>c</p></body></html>")
    assert "a b<br>c" in kept.html  # a line break not right after an icon stays
