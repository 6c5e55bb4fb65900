"""The map's search box with no configuration (issue 24): towns from the offline gazetteer, the visible region first.

Town positions are Wikipedia's (Lausanne 46.52 N, 6.63 E; Paris, Texas 33.66 N, 95.56 W), written by hand."""
import re

from conftest import shot, wait_until


def open_places(page):
    page.goto('/#/places')
    page.wait_for_selector('body[data-ready="true"]')
    page.wait_for_selector('#places-map .me-dot', state='attached')


def map_centre(page):
    """The map's centre as the app gives it to a new pin (the + button puts the draft there and writes its position)."""
    page.click('#place-add')
    page.wait_for_selector('#place-new:not([hidden])')
    text = page.text_content('#place-new-position')
    page.click('#place-new-cancel')
    latitude, longitude = (float(value) for value in re.findall(r'-?\d+\.\d+', text)[:2])
    return latitude, longitude


def results(page):
    return page.locator('#place-search-results button').all_inner_texts()


def test_a_town_is_found_as_you_type_with_no_geocoder_and_choosing_it_moves_the_map(context):
    page = context.new_page()
    open_places(page)
    assert page.locator('#place-search').is_visible()
    page.fill('#place-search-query', 'Lausanne')  # no Find: found as the user types
    wait_until(page, 'document.querySelectorAll("#place-search-results button").length > 0')
    assert results(page)[0] == 'Town: Lausanne, Switzerland'
    assert 'GeoNames' in page.text_content('#place-search-attribution')
    shot(page, 'search-lausanne')
    page.locator('#place-search-results button').first.click()
    latitude, longitude = map_centre(page)
    assert abs(latitude - 46.52) < 0.05 and abs(longitude - 6.63) < 0.05, (latitude, longitude)
    assert page.locator('#place-search-results button').count() == 0

    # Accents folded: "zurich" finds Zürich.
    page.fill('#place-search-query', 'zurich')
    wait_until(page, 'document.querySelector("#place-search-results button")?.textContent.includes("Zürich")')
    assert results(page)[0] == 'Town: Zürich, Switzerland'


def test_the_visible_region_is_searched_first(context):
    page = context.new_page()
    open_places(page)
    page.fill('#place-search-query', 'Paris, Texas')
    wait_until(page, 'document.querySelector("#place-search-results button")?.textContent.includes("Texas")')
    page.locator('#place-search-results button').first.click()
    latitude, longitude = map_centre(page)
    assert abs(latitude - 33.66) < 0.05 and abs(longitude + 95.56) < 0.05, (latitude, longitude)
    # Now "Paris" alone: the Paris in view comes before the larger one in France.
    page.fill('#place-search-query', 'Paris')
    wait_until(page, 'document.querySelectorAll("#place-search-results button").length > 1')
    texts = results(page)
    assert texts[0] == 'Town: Paris, Texas, United States', texts
    assert 'Town: Paris, France' in texts
    shot(page, 'search-paris-in-texas')
