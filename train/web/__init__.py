"""`tabletop serve`: play and watch the games in a browser.

`table` holds one game at one table and builds each viewer's frame from what that viewer may know;
`lobby` makes tables from requests and hands out one unguessable link per seat; `server` puts both on
the web (Starlette and uvicorn, one websocket per page); `games` lists the public constants the drawings
in `static/boards/` read; `load` is the bounded loopback load test. Needs the `web` extra.
"""
