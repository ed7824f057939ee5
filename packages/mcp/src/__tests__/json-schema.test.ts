import type { OpenApiDocumentJson } from "@svc/client";
import { componentSchema, inlineSchema } from "../json-schema";

const doc = (schemas: Record<string, unknown>) =>
  ({
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {},
    components: { schemas },
  }) as OpenApiDocumentJson;

describe("componentSchema", () => {
  it("inlines references, keeps keywords beside a $ref, drops OpenAPI-only keywords", () => {
    const d = doc({
      Id: { type: "string", pattern: "^[a-z]+$", description: "An id." },
      Thing: {
        type: "object",
        example: { id: "a" },
        discriminator: { propertyName: "id" },
        properties: {
          id: { $ref: "#/components/schemas/Id", description: "The thing's id." },
          // A property may be called like an OpenAPI keyword.
          xml: { type: "string" },
          tags: { type: "array", items: { $ref: "#/components/schemas/Id" } },
        },
      },
    });
    expect(componentSchema(d, "Thing")).toEqual({
      type: "object",
      properties: {
        id: { type: "string", pattern: "^[a-z]+$", description: "The thing's id." },
        xml: { type: "string" },
        tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$", description: "An id." } },
      },
    });
    expect(inlineSchema(d, { oneOf: [{ $ref: "#/components/schemas/Id" }, { type: "null" }] })).toEqual({
      oneOf: [{ type: "string", pattern: "^[a-z]+$", description: "An id." }, { type: "null" }],
    });
  });

  it("refuses an unknown or a recursive component", () => {
    expect(() => componentSchema(doc({}), "Missing")).toThrow("no schema components.schemas.Missing");
    const recursive = doc({
      Node: { type: "object", properties: { next: { $ref: "#/components/schemas/Node" } } },
    });
    expect(() => componentSchema(recursive, "Node")).toThrow("schema Node -> Node is recursive");
  });
});
