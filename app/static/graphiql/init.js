// GraphiQL for Qafila's /graphql (adapted from strawberry-graphql's graphiql.html, MIT).
// Put "Authorization": "Bearer sk_test_..." (or the CRM access token) in the Headers tab.
(function () {
  const EXAMPLE_QUERY = `# Qafila GraphQL. In the Headers tab below, put
#   {"Authorization": "Bearer sk_test_..."}
# (on the CRM port: the CRM access token), then run (Ctrl-Enter).
{
  viewer { id email }
}
`;
  const parameters = {};
  for (const entry of window.location.search.slice(1).split("&")) {
    const eq = entry.indexOf("=");
    if (eq >= 0) {
      parameters[decodeURIComponent(entry.slice(0, eq))] = decodeURIComponent(entry.slice(eq + 1));
    }
  }
  function updateURL(data) {
    Object.assign(parameters, data);
    const search = "?" + Object.keys(parameters)
      .filter(function (key) { return Boolean(parameters[key]); })
      .map(function (key) { return encodeURIComponent(key) + "=" + encodeURIComponent(parameters[key]); })
      .join("&");
    history.replaceState(null, null, search);
  }
  const fetcher = GraphiQL.createFetcher({ url: window.location.href.split("?")[0] });

  function QafilaGraphiQL() {
    const [query, setQuery] = React.useState(parameters.q || EXAMPLE_QUERY);
    const [variables, setVariables] = React.useState(parameters.variables);
    const [headers, setHeaders] = React.useState(parameters.headers);
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultEditorToolsVisibility: true,
      plugins: [GraphiQLPluginExplorer.explorerPlugin()],
      query: query,
      variables: variables,
      headers: headers,
      onEditQuery: function (q) { setQuery(q); updateURL({ q: q }); },
      onEditVariables: function (v) { setVariables(v); updateURL({ variables: v }); },
      onEditHeaders: setHeaders,
      inputValueDeprecation: true,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
    });
  }
  ReactDOM.createRoot(document.getElementById("graphiql")).render(React.createElement(QafilaGraphiQL));
})();
