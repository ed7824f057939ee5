/** Where a template's source is wrong: compiling or checking it. */
export interface TemplateSourceError {
  /** 1-based line in the source, when it is known. */
  line: number | null;
  message: string;
}
