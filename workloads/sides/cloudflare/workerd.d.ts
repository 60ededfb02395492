declare module "workerd" {
  const path: string;
  export default path;
  export const version: string;
  export const compatibilityDate: string;
}
