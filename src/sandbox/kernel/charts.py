import sys

# Interactive charts (docs/spec.md#charts): a plotly figure a cell shows (`fig.show()`,
# `pio.show(fig)`, or the cell's last expression) is written as `figure-<n>.plotly.json`, an
# altair chart (`chart.show()` or the last expression) as `chart-<n>.vega.json` (its Vega-Lite
# spec), into the cell's working folder, so the artifact scan finds them like any file. Nothing
# here imports plotly or altair: the hooks are put in place the moment a cell imports them.
PLOTLY_SUFFIX, VEGA_SUFFIX = ".plotly.json", ".vega.json"
# A spec this large would make the studio slow to draw it; the cell is told to aggregate.
CHART_MAX_BYTES = 10 * 1024 * 1024


def write_chart(prefix, suffix, text):
    if len(text) > CHART_MAX_BYTES:
        sys.stderr.write(
            "[analyst] the chart was not saved: its spec is %d bytes, more than %d; aggregate the data "
            "or draw it with matplotlib\n" % (len(text), CHART_MAX_BYTES)
        )
        return None
    index = 1
    while True:
        name = "%s-%d%s" % (prefix, index, suffix)
        try:
            with open(name, "x", encoding="utf-8") as f:
                f.write(text)
            return name
        except FileExistsError:
            index += 1


def save_plotly(figure):
    """A plotly Figure or figure dict, as plotly.js reads it ({data, layout})."""
    try:
        import plotly.io as pio

        write_chart("figure", PLOTLY_SUFFIX, pio.to_json(figure, validate=False))
    except Exception as error:  # a broken figure must not hide the cell's own result
        sys.stderr.write("[analyst] could not save a plotly figure: %r\n" % (error,))


def save_altair(chart):
    import warnings

    try:
        # Altair 4.2 on pandas 1.5 warns about pandas' own API while it converts the data: noise
        # in the cell's output that the cell did not cause.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            text = chart.to_json()
        write_chart("chart", VEGA_SUFFIX, text)
    except Exception as error:
        sys.stderr.write("[analyst] could not save an altair chart: %s: %s\n" % (type(error).__name__, error))


def patch_plotly_io(pio):
    """Makes `fig.show()` and `pio.show(fig)` write the figure's spec instead of opening a browser."""
    from plotly.io._base_renderers import ExternalRenderer

    class AnalystRenderer(ExternalRenderer):
        def render(self, fig_dict):
            save_plotly(fig_dict)

    pio.renderers["analyst"] = AnalystRenderer()
    pio.renderers.default = "analyst"


def altair_api_modules():
    return [
        module
        for module in (sys.modules.get("altair.vegalite.v%d.api" % n) for n in (4, 5, 6))
        if module is not None
    ]


def patch_altair(_altair):
    """Makes `chart.show()` (which wants a browser and altair_viewer) write the chart's spec."""
    for api in altair_api_modules():
        api.TopLevelMixin.show = lambda self, *args, **kwargs: save_altair(self)


CHART_PATCHES = {"plotly.io": patch_plotly_io, "altair": patch_altair}


class ChartImportHook:
    """A meta path finder that patches a chart library right after a cell first imports it, so a
    kernel (and a cell that draws no chart) never pays for importing one."""

    def find_spec(self, name, path=None, target=None):
        patch = CHART_PATCHES.get(name)
        if patch is None:
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original = spec.loader.exec_module

        def exec_module(module):
            original(module)
            try:
                patch(module)
            except Exception as error:
                sys.stderr.write("[analyst] could not prepare %s for charts: %r\n" % (name, error))

        spec.loader.exec_module = exec_module  # this loader object serves this one import
        return spec


def install_chart_hooks():
    if not any(isinstance(finder, ChartImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, ChartImportHook())


def may_show_charts(code):
    """Whether a cell could end with a chart: it names a chart library or one is loaded. Only
    such cells are split to look at their last expression (other cells run as one program)."""
    return "plotly" in code or "altair" in code or "plotly" in sys.modules or "altair" in sys.modules


def show_if_chart(value):
    """The cell's last expression, shown as a notebook would when it is a chart."""
    if value is None:
        return
    base = sys.modules.get("plotly.basedatatypes")
    if base is not None and isinstance(value, base.BaseFigure):
        save_plotly(value)
        return
    for api in altair_api_modules():
        if isinstance(value, api.TopLevelMixin):
            save_altair(value)
            return
