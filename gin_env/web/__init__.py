"""The web table (``gin-env serve``): a local web app to play, watch and replay Gin Rummy in every format.

``wire`` tells a hand as JSON-ready dicts (a seat's view, the public table, every hand, the showdown) and owns
where hidden information could leak; ``games`` plays one game of any format through the table layer, its seats
held by agents or by people, and saves every finished hand as a replay; ``hints`` says what the shipped agents would
play and the search's value of each action; ``rooms`` seats people in rooms; ``replays`` serves a replay folder;
``app`` is the Starlette app and ``serve`` its command line (only those two import the ``web`` extra).
"""
