import path from "node:path";
import { Router } from "express";
import type { OpenApiDocument } from "../openapi/load-openapi";

// /openapi.json, Swagger UI at /docs and ReDoc at /redoc, all assets served from node_modules
// (no CDN). swagger-ui-dist's own initializer points at the petstore, so /docs ships its own.

const SWAGGER_ASSETS = [
  "swagger-ui.css",
  "swagger-ui-bundle.js",
  "swagger-ui-standalone-preset.js",
  "favicon-32x32.png",
];
const SWAGGER_UI_DIR = path.dirname(require.resolve("swagger-ui-dist/package.json"));
const REDOC_BUNDLE = require.resolve("redoc/bundles/redoc.standalone.js");

const SWAGGER_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>svc API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/swagger-initializer.js"></script>
</body>
</html>
`;

const SWAGGER_INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout"
  });
};
`;

const REDOC_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>svc API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
</head>
<body>
  <redoc spec-url="/openapi.json"></redoc>
  <script src="/redoc/redoc.standalone.js"></script>
</body>
</html>
`;

export function docsRouter(doc: OpenApiDocument): Router {
  const router = Router();
  const json = JSON.stringify(doc);
  router.get("/openapi.json", (_req, res) => {
    res.type("application/json").send(json);
  });
  router.get("/docs", (_req, res) => {
    res.type("html").send(SWAGGER_HTML);
  });
  router.get("/docs/swagger-initializer.js", (_req, res) => {
    res.type("application/javascript").send(SWAGGER_INITIALIZER);
  });
  for (const asset of SWAGGER_ASSETS) {
    router.get(`/docs/${asset}`, (_req, res) => res.sendFile(path.join(SWAGGER_UI_DIR, asset)));
  }
  router.get("/redoc", (_req, res) => {
    res.type("html").send(REDOC_HTML);
  });
  router.get("/redoc/redoc.standalone.js", (_req, res) => res.sendFile(REDOC_BUNDLE));
  return router;
}
