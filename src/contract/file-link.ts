/** A generated file as DeepAnalyze's API reports it (`files`, `generated_files`): its name and download URL. */
export interface FileLink {
  name: string;
  url: string;
}
