// `import x from "….csv" with { type: "file" }` gives the path of the embedded file.
declare module "*.csv" {
  const path: string;
  export default path;
}
